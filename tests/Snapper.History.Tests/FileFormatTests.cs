using System.Text;
using Snapper.History;

namespace Snapper.History.Tests;

public sealed class FileFormatTests : IDisposable
{
    private const string ContractLine =
        """{"tid":17,"mode":"act","status":"committed","abortReason":null,"actors":["a3","a9"],"appends":[{"actor":"a3","prefixLen":4,"prevTid":12},{"actor":"a9","prefixLen":0,"prevTid":null}]}""";

    private readonly string _dir = Directory.CreateTempSubdirectory("snapper-history-tests-").FullName;

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    [Fact]
    public void ContractExampleLine_ParsesAndFormatsIdentically()
    {
        var entry = HistoryFile.ParseLine(ContractLine);

        Assert.Equal(
            new HistoryEntry(17, "act", TransactionStatus.Committed, null, ["a3", "a9"], [new("a3", 4, 12), new("a9", 0, null)]),
            entry);
        Assert.Equal(ContractLine, HistoryFile.FormatLine(entry));
    }

    [Fact]
    public void HistoryFile_RoundTripsThroughATempFile()
    {
        var history = SerialExecution.Generate(seed: 3, transactions: 300).History;
        history.Add(new HistoryEntry(-5, "act-elr", TransactionStatus.Aborted, "quote \" backslash \\ newline \n ünïcode", [], []));
        var path = Path.Combine(_dir, "history.jsonl");

        HistoryFile.Write(path, history);
        var read = HistoryFile.Read(path);

        Assert.Equal(history, read);
        Assert.Equal(history.Count, File.ReadLines(path).Count());
        Assert.Contains("\"status\":\"aborted\"", File.ReadAllText(path), StringComparison.Ordinal);
        Assert.Contains("\"status\":\"unknown\"", File.ReadAllText(path), StringComparison.Ordinal);
    }

    [Fact]
    public async Task HistoryFile_RoundTripsAsynchronously()
    {
        var history = SerialExecution.Generate(seed: 4, transactions: 200).History;
        var path = Path.Combine(_dir, "history-async.jsonl");

        await HistoryFile.WriteAsync(path, history);
        var read = await HistoryFile.ReadAsync(path);

        Assert.Equal(history, read);
    }

    [Fact]
    public async Task HistoryFile_ReadsCrlfBomAndLinesLongerThanItsBuffer()
    {
        var history = SerialExecution.Generate(seed: 6, transactions: 3_000).History;
        history.Insert(1_000, new HistoryEntry(1L << 40, "act", TransactionStatus.Aborted, new string('x', 300_000), ["a1"], []));
        var path = Path.Combine(_dir, "crlf-bom.jsonl");
        var text = "\uFEFF" + string.Join("\r\n", history.Select(HistoryFile.FormatLine)); // no final line break
        await File.WriteAllTextAsync(path, text, new UTF8Encoding(encoderShouldEmitUTF8Identifier: false));

        Assert.Equal(history, HistoryFile.Read(path));
        Assert.Equal(history, await HistoryFile.ReadAsync(path));
        using var reader = new StringReader(text);
        Assert.Equal(history, HistoryFile.Read(reader, path));
    }

    [Fact]
    public void ListDump_RoundTripsThroughATempFile()
    {
        var dump = SerialExecution.Generate(seed: 5).Dump();
        var withEdges = new Dictionary<string, IReadOnlyList<long>>(dump, StringComparer.Ordinal)
        {
            ["empty"] = [],
            ["ünïcode \"actor\""] = [long.MaxValue, long.MinValue, 0],
        };
        var path = Path.Combine(_dir, "dump.json");

        ListDump.Write(path, withEdges);
        var read = ListDump.Read(path);

        Assert.Equal(withEdges.Keys.Order(StringComparer.Ordinal), read.Keys.Order(StringComparer.Ordinal));
        foreach (var (actor, tids) in withEdges)
        {
            Assert.Equal(tids, read[actor]);
        }
    }

    [Fact]
    public void ListDump_ContractExampleParses()
    {
        var dump = ListDump.Parse("""{"a3":[5,9,12,17],"a9":[17,20]}""");

        Assert.Equal([5L, 9, 12, 17], dump["a3"]);
        Assert.Equal([17L, 20], dump["a9"]);
        Assert.Equal("""{"a3":[5,9,12,17],"a9":[17,20]}""", ListDump.Format(dump));
    }

    [Theory]
    [InlineData("""{"a3":[5,"x"]}""", "element 1 of actor \"a3\"")]
    [InlineData("""{"a3":[5,1.5]}""", "element 1 of actor \"a3\"")]
    [InlineData("""{"a3":[1],"a3":[2]}""", "appears more than once")]
    [InlineData("""[1,2]""", "one JSON object")]
    [InlineData("""{"a3":[1]""", "Malformed list dump")]
    public void MalformedListDump_IsRejected(string json, string expected)
    {
        var ex = Assert.Throws<InvalidDataException>(() => ListDump.Parse(json));

        Assert.Contains(expected, ex.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("""{"tid":3,"mode":"act","status":"committed","abortReason":null,"actors":["a1"],"appends":[{"actor":"a1","prefixLen":0""", "invalid JSON")]
    [InlineData("""{"mode":"act","status":"committed","abortReason":null,"actors":[],"appends":[]}""", "missing \"tid\"")]
    [InlineData("""{"tid":3,"mode":"act","status":"done","abortReason":null,"actors":[],"appends":[]}""", "status \"done\"")]
    [InlineData("""{"tid":"3","mode":"act","status":"committed","abortReason":null,"actors":[],"appends":[]}""", "\"tid\" must be an integer, found string \"3\"")]
    [InlineData("""{"tid":3,"mode":"act","status":"committed","abortReason":null,"actors":["a1"],"appends":[{"actor":"a1","prefixLen":0,"prevTid":null}]} x""", "invalid JSON")]
    [InlineData("""{"tid":3,"mode":"act","status":"committed","abortReason":null,"actors":["a1",7],"appends":[]}""", "actors[1] must be a string, found number 7")]
    [InlineData("""{"tid":3,"status":"committed","abortReason":null,"actors":[],"appends":[]}""", "tid 3: missing \"mode\"")]
    [InlineData("""{"tid":3,"mode":"act","status":"committed","abortReason":null,"appends":[]}""", "missing \"actors\"")]
    [InlineData("""{"tid":3,"mode":"act","status":"committed","abortReason":null,"actors":["a1"],"appends":[{"actor":"a1","prefixLen":-1,"prevTid":null}]}""", "negative prefixLen")]
    [InlineData("""null""", "expected a JSON object")]
    public void MalformedHistoryLine_NamesItsLineNumber(string badLine, string expected)
    {
        var path = Path.Combine(_dir, "bad.jsonl");
        var lines = new StringBuilder();
        lines.Append(ContractLine).Append('\n');
        lines.Append('\n'); // a blank line is skipped but still counted
        lines.Append(HistoryFile.FormatLine(H.Aborted(18, "a3"))).Append('\n');
        lines.Append(badLine).Append('\n');
        lines.Append(ContractLine).Append('\n');
        File.WriteAllText(path, lines.ToString());

        var ex = Assert.Throws<InvalidDataException>(() => HistoryFile.Read(path));

        Assert.Contains("line 4", ex.Message, StringComparison.Ordinal);
        Assert.Contains(path, ex.Message, StringComparison.Ordinal);
        Assert.Contains(expected, ex.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task HistoryWriter_AcceptsConcurrentAppendsFromManyTasks()
    {
        var path = Path.Combine(_dir, "concurrent.jsonl");
        const int tasks = 16;
        const int perTask = 2_000;
        var writer = new HistoryWriter(path);
        await using (writer)
        {
            await Task.WhenAll(Enumerable.Range(0, tasks).Select(t => Task.Run(async () =>
            {
                for (var i = 0; i < perTask; i++)
                {
                    long tid = (t * perTask) + i;
                    writer.Append(H.Committed(tid, ($"a{t}", i, i == 0 ? null : tid - 1)));
                    if (i % 500 == 0)
                    {
                        await Task.Yield();
                    }
                }
            })));

            Assert.Equal(tasks * perTask, writer.AppendedCount);
        }

        var read = HistoryFile.Read(path);
        Assert.Equal(tasks * perTask, read.Count);
        Assert.Equal(Enumerable.Range(0, tasks * perTask).Select(i => (long)i), read.Select(e => e.Tid).Order());

        // Each task's entries keep their order, and the whole history checks out against its lists.
        var dump = Enumerable.Range(0, tasks).ToDictionary(
            t => $"a{t}", t => (IReadOnlyList<long>)[.. Enumerable.Range(t * perTask, perTask).Select(i => (long)i)]);
        Assert.True(ListAppendChecker.Check(read, dump).Ok);
        Assert.Throws<ObjectDisposedException>(() => writer.Append(H.Aborted(-1, "a0")));
    }

    [Fact]
    public async Task HistoryWriter_FlushAsync_MakesEarlierAppendsVisibleInTheFile()
    {
        var path = Path.Combine(_dir, "flush.jsonl");
        var writer = new HistoryWriter(path);
        await using (writer)
        {
            for (var tid = 1; tid <= 10; tid++)
            {
                writer.Append(H.Unknown(tid, "a"));
            }

            await writer.FlushAsync();

            using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite);
            using var reader = new StreamReader(stream);
            Assert.Equal(10, HistoryFile.Read(reader, path).Count());
            Assert.Equal(10, writer.WrittenCount);
        }
    }

    [Fact]
    public async Task HistoryWriter_ReportsAFailedWriteInsteadOfLosingEntriesSilently()
    {
        var writer = new HistoryWriter(new FailingStream());
        writer.Append(H.Unknown(1, "a"));

        await Assert.ThrowsAsync<IOException>(() => writer.FlushAsync());
        Assert.Throws<IOException>(() => writer.Append(H.Unknown(2, "a")));
        await Assert.ThrowsAsync<IOException>(async () => await writer.DisposeAsync());
    }

    private sealed class FailingStream : MemoryStream
    {
        public override void Write(byte[] buffer, int offset, int count) => throw new IOException("disk full");

        public override void Write(ReadOnlySpan<byte> buffer) => throw new IOException("disk full");

        public override ValueTask WriteAsync(ReadOnlyMemory<byte> buffer, CancellationToken cancellationToken = default) =>
            ValueTask.FromException(new IOException("disk full"));
    }
}
