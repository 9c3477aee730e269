using System.Buffers;
using System.Text;
using System.Text.Json;

namespace Snapper.History;

/// <summary>
/// Reads and writes the history file: one JSON object per line per finished transaction, camelCase, status as
/// a lowercase string, for example
/// <c>{"tid":17,"mode":"act","status":"committed","abortReason":null,"actors":["a3","a9"],"appends":[{"actor":"a3","prefixLen":4,"prevTid":12},{"actor":"a9","prefixLen":0,"prevTid":null}]}</c>.
/// </summary>
public static class HistoryFile
{
    private static readonly JsonWriterOptions WriterOptions = JsonFormat.WriterOptions;

    /// <summary>The JSON name of a status: <c>committed</c>, <c>aborted</c> or <c>unknown</c>.</summary>
    public static string StatusName(TransactionStatus status) => status switch
    {
        TransactionStatus.Committed => "committed",
        TransactionStatus.Aborted => "aborted",
        TransactionStatus.Unknown => "unknown",
        _ => throw new ArgumentOutOfRangeException(nameof(status), status, "Undefined transaction status."),
    };

    /// <summary>Parses a status name (case-insensitive); <see langword="false"/> for anything else.</summary>
    public static bool TryParseStatus(string? name, out TransactionStatus status)
    {
        if (string.Equals(name, "committed", StringComparison.OrdinalIgnoreCase))
        {
            status = TransactionStatus.Committed;
        }
        else if (string.Equals(name, "aborted", StringComparison.OrdinalIgnoreCase))
        {
            status = TransactionStatus.Aborted;
        }
        else if (string.Equals(name, "unknown", StringComparison.OrdinalIgnoreCase))
        {
            status = TransactionStatus.Unknown;
        }
        else
        {
            status = default;
            return false;
        }

        return true;
    }

    /// <summary>Reads a whole history file. Blank lines are skipped.</summary>
    /// <exception cref="InvalidDataException">A line is malformed; the message names the file and line number.</exception>
    public static IReadOnlyList<HistoryEntry> Read(string path)
    {
        ArgumentNullException.ThrowIfNull(path);
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, bufferSize: 1);
        return [.. Read(stream, path)];
    }

    /// <summary>Reads a whole history file asynchronously. Blank lines are skipped.</summary>
    /// <exception cref="InvalidDataException">A line is malformed; the message names the file and line number.</exception>
    public static async Task<IReadOnlyList<HistoryEntry>> ReadAsync(string path, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(path);
        var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite, bufferSize: 1, useAsync: true);
        await using (stream.ConfigureAwait(false))
        {
            using var lines = new Utf8LineReader(stream);
            var parser = new HistoryLineParser();
            var entries = new List<HistoryEntry>();
            while (true)
            {
                if (lines.TryTakeLine(out var line))
                {
                    if (!HistoryLineParser.IsBlank(line))
                    {
                        entries.Add(parser.Parse(line, lines.LineNumber, path));
                    }
                }
                else if (lines.EndOfStream)
                {
                    return entries;
                }
                else
                {
                    await lines.FillAsync(cancellationToken).ConfigureAwait(false);
                }
            }
        }
    }

    /// <summary>Streams the entries of a UTF-8 history, one per non-blank line.</summary>
    /// <param name="stream">The history's bytes.</param>
    /// <param name="sourceName">A name for error messages (a file path), or <see langword="null"/>.</param>
    /// <exception cref="InvalidDataException">A line is malformed; the message names the line number.</exception>
    public static IEnumerable<HistoryEntry> Read(Stream stream, string? sourceName = null)
    {
        ArgumentNullException.ThrowIfNull(stream);
        return ReadCore(stream, sourceName);

        static IEnumerable<HistoryEntry> ReadCore(Stream stream, string? sourceName)
        {
            using var lines = new Utf8LineReader(stream);
            var parser = new HistoryLineParser();
            while (true)
            {
                HistoryEntry? entry = null;
                if (lines.TryTakeLine(out var line))
                {
                    if (!HistoryLineParser.IsBlank(line))
                    {
                        entry = parser.Parse(line, lines.LineNumber, sourceName);
                    }
                }
                else if (lines.EndOfStream)
                {
                    yield break;
                }
                else
                {
                    lines.Fill();
                }

                if (entry is not null)
                {
                    yield return entry;
                }
            }
        }
    }

    /// <summary>Streams the entries of a history, one per non-blank line.</summary>
    /// <param name="reader">The history text.</param>
    /// <param name="sourceName">A name for error messages (a file path), or <see langword="null"/>.</param>
    /// <exception cref="InvalidDataException">A line is malformed; the message names the line number.</exception>
    public static IEnumerable<HistoryEntry> Read(TextReader reader, string? sourceName = null)
    {
        ArgumentNullException.ThrowIfNull(reader);
        return ReadCore(reader, sourceName);

        static IEnumerable<HistoryEntry> ReadCore(TextReader reader, string? sourceName)
        {
            var parser = new HistoryLineParser();
            long lineNumber = 0;
            while (reader.ReadLine() is { } text)
            {
                var line = ++lineNumber == 1 ? text.TrimStart('\uFEFF') : text; // a byte order mark a StreamReader did not strip
                if (!string.IsNullOrWhiteSpace(line))
                {
                    yield return parser.Parse(Encoding.UTF8.GetBytes(line), lineNumber, sourceName);
                }
            }
        }
    }

    /// <summary>Parses one history line.</summary>
    /// <param name="line">The line's text: one JSON object.</param>
    /// <param name="lineNumber">The 1-based line number, for error messages.</param>
    /// <param name="sourceName">A name for error messages (a file path), or <see langword="null"/>.</param>
    /// <exception cref="InvalidDataException">The line is malformed; the message names the line number.</exception>
    public static HistoryEntry ParseLine(string line, long lineNumber = 1, string? sourceName = null)
    {
        ArgumentNullException.ThrowIfNull(line);
        return new HistoryLineParser().Parse(Encoding.UTF8.GetBytes(line), lineNumber, sourceName);
    }

    /// <summary>Formats one entry as a history line (without the line break).</summary>
    public static string FormatLine(HistoryEntry entry)
    {
        var buffer = new ArrayBufferWriter<byte>(256);
        using (var writer = new Utf8JsonWriter(buffer, WriterOptions))
        {
            WriteEntry(writer, entry);
        }

        return Encoding.UTF8.GetString(buffer.WrittenSpan);
    }

    /// <summary>Writes a whole history file, one line per entry, replacing any existing file.</summary>
    public static void Write(string path, IEnumerable<HistoryEntry> entries)
    {
        ArgumentNullException.ThrowIfNull(path);
        ArgumentNullException.ThrowIfNull(entries);
        using var stream = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, bufferSize: 1 << 16);
        Write(stream, entries);
    }

    /// <summary>Writes history lines for <paramref name="entries"/> to <paramref name="stream"/>.</summary>
    public static void Write(Stream stream, IEnumerable<HistoryEntry> entries)
    {
        ArgumentNullException.ThrowIfNull(stream);
        ArgumentNullException.ThrowIfNull(entries);
        var buffer = new ArrayBufferWriter<byte>(1 << 16);
        using var writer = new Utf8JsonWriter(buffer, WriterOptions);
        foreach (var entry in entries)
        {
            AppendLine(writer, buffer, entry);
            if (buffer.WrittenCount >= 1 << 16)
            {
                stream.Write(buffer.WrittenSpan);
                buffer.ResetWrittenCount();
            }
        }

        stream.Write(buffer.WrittenSpan);
        stream.Flush();
    }

    /// <summary>Writes a whole history file asynchronously, one line per entry, replacing any existing file.</summary>
    public static async Task WriteAsync(string path, IEnumerable<HistoryEntry> entries, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(path);
        ArgumentNullException.ThrowIfNull(entries);
        var stream = new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, bufferSize: 1 << 16, useAsync: true);
        await using (stream.ConfigureAwait(false))
        {
            var buffer = new ArrayBufferWriter<byte>(1 << 16);
            using var writer = new Utf8JsonWriter(buffer, WriterOptions);
            foreach (var entry in entries)
            {
                AppendLine(writer, buffer, entry);
                if (buffer.WrittenCount >= 1 << 16)
                {
                    await stream.WriteAsync(buffer.WrittenMemory, cancellationToken).ConfigureAwait(false);
                    buffer.ResetWrittenCount();
                }
            }

            await stream.WriteAsync(buffer.WrittenMemory, cancellationToken).ConfigureAwait(false);
            await stream.FlushAsync(cancellationToken).ConfigureAwait(false);
        }
    }

    /// <summary>Writes <paramref name="entry"/> and a line feed to <paramref name="buffer"/> through <paramref name="writer"/>, which must target it.</summary>
    internal static void AppendLine(Utf8JsonWriter writer, ArrayBufferWriter<byte> buffer, HistoryEntry entry)
    {
        writer.Reset(buffer);
        WriteEntry(writer, entry);
        writer.Flush();
        buffer.Write("\n"u8);
    }

    internal static Utf8JsonWriter CreateWriter(IBufferWriter<byte> buffer) => new(buffer, WriterOptions);

    private static void WriteEntry(Utf8JsonWriter writer, HistoryEntry entry)
    {
        ArgumentNullException.ThrowIfNull(entry);
        writer.WriteStartObject();
        writer.WriteNumber("tid"u8, entry.Tid);
        writer.WriteString("mode"u8, entry.Mode);
        writer.WriteString("status"u8, StatusName(entry.Status));
        writer.WriteString("abortReason"u8, entry.AbortReason);
        writer.WriteStartArray("actors"u8);
        foreach (var actor in entry.Actors)
        {
            writer.WriteStringValue(actor);
        }

        writer.WriteEndArray();
        writer.WriteStartArray("appends"u8);
        foreach (var append in entry.Appends)
        {
            writer.WriteStartObject();
            writer.WriteString("actor"u8, append.Actor);
            writer.WriteNumber("prefixLen"u8, append.PrefixLen);
            if (append.PrevTid is { } prev)
            {
                writer.WriteNumber("prevTid"u8, prev);
            }
            else
            {
                writer.WriteNull("prevTid"u8);
            }

            writer.WriteEndObject();
        }

        writer.WriteEndArray();
        writer.WriteEndObject();
    }
}
