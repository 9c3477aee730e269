using System.Text;
using System.Text.Json;

namespace Snapper.History;

/// <summary>
/// Parses history lines straight from UTF-8 with <see cref="Utf8JsonReader"/>, interning the strings that
/// repeat on every line (modes, actor keys, abort reasons) so a history of millions of lines stays small.
/// </summary>
internal sealed class HistoryLineParser
{
    private const int MaxPooledLength = 128;

    private static readonly JsonReaderOptions ReaderOptions = new()
    {
        CommentHandling = JsonCommentHandling.Disallow,
        AllowTrailingCommas = false,
        AllowMultipleValues = false,
    };

    private readonly HashSet<string> _pool = new(StringComparer.Ordinal);
    private readonly HashSet<string>.AlternateLookup<ReadOnlySpan<char>> _lookup;
    private readonly List<string> _actors = [];
    private readonly List<AppendObservation> _appends = [];
    private char[] _chars = new char[MaxPooledLength];

    public HistoryLineParser() => _lookup = _pool.GetAlternateLookup<ReadOnlySpan<char>>();

    /// <summary>Parses one line (without its line break).</summary>
    /// <exception cref="InvalidDataException">The line is malformed; the message names the line number.</exception>
    public HistoryEntry Parse(ReadOnlySpan<byte> line, long lineNumber, string? sourceName)
    {
        try
        {
            return ParseCore(line, lineNumber, sourceName);
        }
        catch (JsonException ex)
        {
            throw Malformed(lineNumber, sourceName, $"invalid JSON at byte {ex.BytePositionInLine + 1} ({ex.Message})", ex);
        }
        catch (InvalidOperationException ex)
        {
            // Utf8JsonReader's typed getters throw this for a token of the wrong type, e.g. a string tid.
            throw Malformed(lineNumber, sourceName, $"a value has the wrong JSON type ({ex.Message})", ex);
        }
    }

    /// <summary>True when <paramref name="line"/> holds only JSON whitespace.</summary>
    public static bool IsBlank(ReadOnlySpan<byte> line) => line.TrimStart(" \t\r\n"u8).IsEmpty;

    public static InvalidDataException Malformed(long lineNumber, string? sourceName, string problem, Exception? inner = null)
    {
        var where = sourceName is null ? $"line {lineNumber}" : $"{sourceName}, line {lineNumber}";
        return new InvalidDataException($"Malformed history entry at {where}: {problem}", inner);
    }

    private HistoryEntry ParseCore(ReadOnlySpan<byte> line, long lineNumber, string? sourceName)
    {
        var reader = new Utf8JsonReader(line, ReaderOptions);
        if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
        {
            throw Malformed(lineNumber, sourceName, $"expected a JSON object, found {Describe(reader)}");
        }

        long? tid = null;
        string? mode = null;
        string? abortReason = null;
        TransactionStatus? status = null;
        var sawActors = false;
        _actors.Clear();
        _appends.Clear();

        while (Next(ref reader) != JsonTokenType.EndObject)
        {
            if (reader.ValueTextEquals("tid"u8))
            {
                Next(ref reader);
                tid = reader.TokenType == JsonTokenType.Number && reader.TryGetInt64(out var t)
                    ? t
                    : throw Malformed(lineNumber, sourceName, $"\"tid\" must be an integer, found {Describe(reader)}");
            }
            else if (reader.ValueTextEquals("mode"u8))
            {
                Next(ref reader);
                mode = reader.TokenType == JsonTokenType.String
                    ? String(ref reader)
                    : throw Malformed(lineNumber, sourceName, $"\"mode\" must be a string, found {Describe(reader)}");
            }
            else if (reader.ValueTextEquals("status"u8))
            {
                Next(ref reader);
                if (reader.TokenType != JsonTokenType.String)
                {
                    throw Malformed(lineNumber, sourceName, $"\"status\" must be a string, found {Describe(reader)}");
                }

                var name = String(ref reader);
                status = HistoryFile.TryParseStatus(name, out var s)
                    ? s
                    : throw Malformed(lineNumber, sourceName, $"status \"{name}\" is not committed, aborted or unknown");
            }
            else if (reader.ValueTextEquals("abortReason"u8))
            {
                Next(ref reader);
                abortReason = reader.TokenType switch
                {
                    JsonTokenType.Null => null,
                    JsonTokenType.String => String(ref reader),
                    _ => throw Malformed(lineNumber, sourceName, $"\"abortReason\" must be a string or null, found {Describe(reader)}"),
                };
            }
            else if (reader.ValueTextEquals("actors"u8))
            {
                sawActors = true;
                _actors.Clear();
                if (Next(ref reader) != JsonTokenType.StartArray)
                {
                    throw Malformed(lineNumber, sourceName, $"\"actors\" must be an array of strings, found {Describe(reader)}");
                }

                while (Next(ref reader) != JsonTokenType.EndArray)
                {
                    _actors.Add(reader.TokenType == JsonTokenType.String
                        ? String(ref reader)
                        : throw Malformed(lineNumber, sourceName, $"actors[{_actors.Count}] must be a string, found {Describe(reader)}"));
                }
            }
            else if (reader.ValueTextEquals("appends"u8))
            {
                _appends.Clear();
                var token = Next(ref reader);
                if (token == JsonTokenType.Null)
                {
                    continue;
                }

                if (token != JsonTokenType.StartArray)
                {
                    throw Malformed(lineNumber, sourceName, $"\"appends\" must be an array, found {Describe(reader)}");
                }

                while (Next(ref reader) != JsonTokenType.EndArray)
                {
                    _appends.Add(ParseAppend(ref reader, lineNumber, sourceName));
                }
            }
            else
            {
                reader.Skip(); // unknown property: ignored, for forward compatibility
            }
        }

        if (reader.Read())
        {
            throw Malformed(lineNumber, sourceName, "unexpected content after the JSON object");
        }

        if (tid is null)
        {
            throw Malformed(lineNumber, sourceName, "missing \"tid\"");
        }

        if (mode is null)
        {
            throw Malformed(lineNumber, sourceName, $"tid {tid}: missing \"mode\"");
        }

        if (status is null)
        {
            throw Malformed(lineNumber, sourceName, $"tid {tid}: missing \"status\"");
        }

        if (!sawActors)
        {
            throw Malformed(lineNumber, sourceName, $"tid {tid}: missing \"actors\"");
        }

        return new HistoryEntry(tid.Value, mode, status.Value, abortReason, [.. _actors], [.. _appends]);
    }

    private AppendObservation ParseAppend(ref Utf8JsonReader reader, long lineNumber, string? sourceName)
    {
        var index = _appends.Count;
        if (reader.TokenType != JsonTokenType.StartObject)
        {
            throw Malformed(lineNumber, sourceName, $"appends[{index}] must be an object, found {Describe(reader)}");
        }

        string? actor = null;
        int? prefixLen = null;
        long? prevTid = null;
        while (Next(ref reader) != JsonTokenType.EndObject)
        {
            if (reader.ValueTextEquals("actor"u8))
            {
                Next(ref reader);
                actor = reader.TokenType == JsonTokenType.String
                    ? String(ref reader)
                    : throw Malformed(lineNumber, sourceName, $"appends[{index}].actor must be a string, found {Describe(reader)}");
            }
            else if (reader.ValueTextEquals("prefixLen"u8))
            {
                Next(ref reader);
                prefixLen = reader.TokenType == JsonTokenType.Number && reader.TryGetInt32(out var p)
                    ? p
                    : throw Malformed(lineNumber, sourceName, $"appends[{index}].prefixLen must be a 32-bit integer, found {Describe(reader)}");
            }
            else if (reader.ValueTextEquals("prevTid"u8))
            {
                Next(ref reader);
                prevTid = reader.TokenType switch
                {
                    JsonTokenType.Null => null,
                    JsonTokenType.Number when reader.TryGetInt64(out var t) => t,
                    _ => throw Malformed(lineNumber, sourceName, $"appends[{index}].prevTid must be an integer or null, found {Describe(reader)}"),
                };
            }
            else
            {
                reader.Skip();
            }
        }

        if (actor is null)
        {
            throw Malformed(lineNumber, sourceName, $"appends[{index}] is missing \"actor\"");
        }

        if (prefixLen is null)
        {
            throw Malformed(lineNumber, sourceName, $"appends[{index}] is missing \"prefixLen\"");
        }

        if (prefixLen < 0)
        {
            throw Malformed(lineNumber, sourceName, $"appends[{index}] has negative prefixLen {prefixLen}");
        }

        return new AppendObservation(actor, prefixLen.Value, prevTid);
    }

    private static JsonTokenType Next(ref Utf8JsonReader reader) =>
        reader.Read() ? reader.TokenType : throw new JsonException("The line ends inside the JSON object.");

    /// <summary>The current string token, interned when short.</summary>
    private string String(ref Utf8JsonReader reader)
    {
        var length = reader.HasValueSequence ? reader.ValueSequence.Length : reader.ValueSpan.Length;
        if (length > MaxPooledLength)
        {
            return reader.GetString()!;
        }

        var written = reader.CopyString(_chars);
        var chars = _chars.AsSpan(0, written);
        if (_lookup.TryGetValue(chars, out var pooled))
        {
            return pooled;
        }

        var text = new string(chars);
        _pool.Add(text);
        return text;
    }

    private static string Describe(Utf8JsonReader reader) => reader.TokenType switch
    {
        JsonTokenType.None => "nothing",
        JsonTokenType.String => $"string \"{reader.GetString()}\"",
        JsonTokenType.Number => $"number {Encoding.UTF8.GetString(reader.ValueSpan)}",
        JsonTokenType.StartObject => "an object",
        JsonTokenType.StartArray => "an array",
        JsonTokenType.True or JsonTokenType.False => reader.TokenType.ToString().ToLowerInvariant(),
        JsonTokenType.Null => "null",
        _ => reader.TokenType.ToString(),
    };
}
