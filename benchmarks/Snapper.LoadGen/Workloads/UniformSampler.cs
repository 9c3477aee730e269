namespace Snapper.LoadGen.Workloads;

/// <summary>Keys in [<paramref name="first"/>, <paramref name="first"/> + <paramref name="count"/>), equally likely.</summary>
public sealed class UniformSampler(int first, int count) : IKeySampler
{
    /// <inheritdoc />
    public int Next(Random random)
    {
        ArgumentNullException.ThrowIfNull(random);
        return first + random.Next(count);
    }
}
