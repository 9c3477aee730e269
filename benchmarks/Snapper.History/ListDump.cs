using System.Buffers;
using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Snapper.History;

/// <summary>
/// Reads and writes the dump of every actor's list read back at the end of a run: one JSON object mapping
/// actor key → tids in list order, for example <c>{"a3":[5,9,12,17],"a9":[17,20]}</c>.
/// </summary>
public static class ListDump
{
    private static readonly JsonWriterOptions WriterOptions = JsonFormat.WriterOptions;

    /// <summary>Reads a dump file.</summary>
    /// <exception cref="InvalidDataException">The file is not a well-formed dump; the message says where.</exception>
    public static IReadOnlyDictionary<string, IReadOnlyList<long>> Read(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        return Parse(File.ReadAllBytes(path), path);
    }

    /// <summary>Reads a dump file asynchronously.</summary>
    /// <exception cref="InvalidDataException">The file is not a well-formed dump; the message says where.</exception>
    public static async Task<IReadOnlyDictionary<string, IReadOnlyList<long>>> ReadAsync(string path, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(path);
        var bytes = await File.ReadAllBytesAsync(path, cancellationToken).ConfigureAwait(false);
        return Parse(bytes, path);
    }

    /// <summary>Parses a dump from its JSON text.</summary>
    /// <exception cref="InvalidDataException">The text is not a well-formed dump; the message says where.</exception>
    public static IReadOnlyDictionary<string, IReadOnlyList<long>> Parse(string json)
    {
        ArgumentNullException.ThrowIfNull(json);
        return Parse(Encoding.UTF8.GetBytes(json), sourceName: null);
    }

    /// <summary>Parses a dump from UTF-8 JSON (a leading byte order mark is allowed).</summary>
    /// <param name="utf8">The dump's bytes.</param>
    /// <param name="sourceName">A name for error messages (a file path), or <see langword="null"/>.</param>
    /// <exception cref="InvalidDataException">The bytes are not a well-formed dump; the message says where.</exception>
    public static IReadOnlyDictionary<string, IReadOnlyList<long>> Parse(ReadOnlySpan<byte> utf8, string? sourceName = null)
    {
        if (utf8.StartsWith("\uFEFF"u8))
        {
            utf8 = utf8[3..];
        }

        var reader = new Utf8JsonReader(utf8, new JsonReaderOptions { CommentHandling = JsonCommentHandling.Disallow });
        var lists = new Dictionary<string, IReadOnlyList<long>>(StringComparer.Ordinal);
        try
        {
            Expect(ref reader, JsonTokenType.StartObject, "the dump must be one JSON object");
            while (true)
            {
                Next(ref reader);
                if (reader.TokenType == JsonTokenType.EndObject)
                {
                    break;
                }

                var actor = reader.GetString()!;
                Expect(ref reader, JsonTokenType.StartArray, $"the list of actor \"{actor}\" must be an array of tids");
                var tids = new List<long>();
                while (true)
                {
                    Next(ref reader);
                    if (reader.TokenType == JsonTokenType.EndArray)
                    {
                        break;
                    }

                    if (reader.TokenType != JsonTokenType.Number || !reader.TryGetInt64(out var tid))
                    {
                        throw Malformed(ref reader, sourceName, $"element {tids.Count} of actor \"{actor}\"'s list is not an integer tid");
                    }

                    tids.Add(tid);
                }

                if (!lists.TryAdd(actor, tids))
                {
                    throw Malformed(ref reader, sourceName, $"actor \"{actor}\" appears more than once");
                }
            }

            if (reader.Read())
            {
                throw Malformed(ref reader, sourceName, "unexpected content after the dump object");
            }
        }
        catch (JsonException ex)
        {
            var where = ex.LineNumber is { } line
                ? string.Create(CultureInfo.InvariantCulture, $" at line {line + 1}, byte {ex.BytePositionInLine + 1}")
                : string.Empty;
            throw new InvalidDataException($"Malformed list dump{(sourceName is null ? string.Empty : $" {sourceName}")}{where}: {ex.Message}", ex);
        }

        return lists;

        static void Next(ref Utf8JsonReader reader)
        {
            if (!reader.Read())
            {
                throw new JsonException("The dump ends early.");
            }
        }

        void Expect(ref Utf8JsonReader reader, JsonTokenType type, string problem)
        {
            Next(ref reader);
            if (reader.TokenType != type)
            {
                throw Malformed(ref reader, sourceName, problem);
            }
        }
    }

    /// <summary>Formats a dump as one line of JSON, actors in the dictionary's order.</summary>
    public static string Format(IReadOnlyDictionary<string, IReadOnlyList<long>> lists)
    {
        var buffer = new ArrayBufferWriter<byte>();
        WriteTo(buffer, lists);
        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    /// <summary>Writes a dump file (one JSON object and a line feed), replacing any existing file.</summary>
    public static void Write(string path, IReadOnlyDictionary<string, IReadOnlyList<long>> lists)
    {
        ArgumentNullException.ThrowIfNull(path);
        var buffer = new ArrayBufferWriter<byte>();
        WriteTo(buffer, lists);
        buffer.Write("\n"u8);
        using var stream = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read);
        stream.Write(buffer.WrittenSpan);
    }

    /// <summary>Writes a dump file asynchronously (one JSON object and a line feed), replacing any existing file.</summary>
    public static async Task WriteAsync(string path, IReadOnlyDictionary<string, IReadOnlyList<long>> lists, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(path);
        var buffer = new ArrayBufferWriter<byte>();
        WriteTo(buffer, lists);
        buffer.Write("\n"u8);
        var stream = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, bufferSize: 1, useAsync: true);
        await using (stream.ConfigureAwait(false))
        {
            await stream.WriteAsync(buffer.WrittenMemory, cancellationToken).ConfigureAwait(false);
        }
    }

    private static void WriteTo(IBufferWriter<byte> buffer, IReadOnlyDictionary<string, IReadOnlyList<long>> lists)
    {
        ArgumentNullException.ThrowIfNull(lists);
        using var writer = new Utf8JsonWriter(buffer, WriterOptions);
        writer.WriteStartObject();
        foreach (var (actor, tids) in lists)
        {
            writer.WriteStartArray(actor);
            foreach (var tid in tids ?? throw new ArgumentException($"The list of actor \"{actor}\" is null.", nameof(lists)))
            {
                writer.WriteNumberValue(tid);
            }

            writer.WriteEndArray();
        }

        writer.WriteEndObject();
    }

    private static InvalidDataException Malformed(ref Utf8JsonReader reader, string? sourceName, string problem) =>
        new(string.Create(CultureInfo.InvariantCulture,
            $"Malformed list dump{(sourceName is null ? string.Empty : $" {sourceName}")} at byte {reader.TokenStartIndex + 1}: {problem}"));
}
