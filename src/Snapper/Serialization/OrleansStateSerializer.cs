using Orleans.Serialization;

namespace Snapper.Serialization;

/// <summary>
/// The default <see cref="IStateSerializer"/>: Orleans' serializer and deep copier, with the codecs
/// its code generator makes for <c>[GenerateSerializer]</c> state classes. The bytes it writes go
/// inside Snapper's own versioned log records; the copies it makes are what a writing transaction
/// works on, so an abort leaves the committed state untouched.
/// </summary>
public sealed class OrleansStateSerializer(Serializer serializer, DeepCopier copier) : IStateSerializer
{
    /// <inheritdoc />
    public byte[] Serialize<T>(T state) => serializer.SerializeToArray(state);

    /// <inheritdoc />
    public T Deserialize<T>(ReadOnlySpan<byte> data) =>
        serializer.Deserialize<T>(data) ?? throw new InvalidDataException($"A serialized {typeof(T).Name} state decoded to null.");

    /// <inheritdoc />
    public T Copy<T>(T state) => copier.Copy(state)!;
}
