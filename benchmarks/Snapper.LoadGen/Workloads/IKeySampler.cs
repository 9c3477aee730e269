namespace Snapper.LoadGen.Workloads;

/// <summary>Draws one actor key in [0, actors); may repeat keys. Thread-safe: all state is in the caller's <see cref="Random"/>.</summary>
public interface IKeySampler
{
    /// <summary>One key, drawn with <paramref name="random"/>.</summary>
    int Next(Random random);
}
