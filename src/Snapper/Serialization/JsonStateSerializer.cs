using System.Text.Json;

namespace Snapper.Serialization;

/// <summary>
/// An <see cref="IStateSerializer"/> on System.Text.Json with public fields included, for states
/// without Orleans serialization attributes (the default is <see cref="OrleansStateSerializer"/>).
/// A state must round-trip: public read-write properties or fields, a public parameterless
/// constructor (or a constructor System.Text.Json can bind), no reference cycles.
/// </summary>
public sealed class JsonStateSerializer : IStateSerializer
{
    private static readonly JsonSerializerOptions Options = new()
    {
        IncludeFields = true,
        WriteIndented = false,
    };

    /// <inheritdoc />
    public byte[] Serialize<T>(T state) => JsonSerializer.SerializeToUtf8Bytes(state, Options);

    /// <inheritdoc />
    public T Deserialize<T>(ReadOnlySpan<byte> data) =>
        JsonSerializer.Deserialize<T>(data, Options) ?? throw new InvalidDataException($"A serialized {typeof(T).Name} state decoded to null.");

    /// <inheritdoc />
    public T Copy<T>(T state) => Deserialize<T>(Serialize(state));
}
