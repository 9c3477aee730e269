using System.Text.Json;

namespace Snapper.Serialization;

/// <summary>
/// The default <see cref="IStateSerializer"/>: System.Text.Json with public fields included.
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
