namespace Snapper.Serialization;

/// <summary>
/// Turns actor states into bytes (for log records) and copies them (a writing transaction works
/// on a private copy so that an abort leaves the committed state untouched). Replaceable: register
/// your own before calling <c>AddSnapper</c>.
/// </summary>
public interface IStateSerializer
{
    /// <summary>Serializes a state.</summary>
    byte[] Serialize<T>(T state);

    /// <summary>Deserializes a state written by <see cref="Serialize{T}"/>.</summary>
    T Deserialize<T>(ReadOnlySpan<byte> data);

    /// <summary>A deep copy of <paramref name="state"/> that shares nothing mutable with it.</summary>
    T Copy<T>(T state);
}
