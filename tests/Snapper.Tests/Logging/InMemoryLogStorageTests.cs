using Snapper.Logging;
using static Snapper.Tests.Infrastructure.LogStorageContents;

namespace Snapper.Tests.Logging;

public sealed class InMemoryLogStorageTests
{
    private const int Chunk = 1 << 20;

    // Record i: its length and every byte say i, so a record read from the wrong place shows.
    private static byte[] Record(int i, int length) => [.. Enumerable.Repeat((byte)i, length)];

    [Fact]
    public async Task Records_across_chunks_and_larger_than_a_chunk_read_back_in_order_byte_for_byte()
    {
        var storage = new InMemoryLogStorage();
        var lengths = new[] { 100, Chunk - 150, 100, (2 * Chunk) + 7, 1, Chunk, 3 }; // the second fills a chunk but for 50 bytes
        var written = lengths.Select((length, i) => Record(i + 1, length)).ToList();
        await storage.AppendAsync("log", [.. written.Take(3).Select(r => (ReadOnlyMemory<byte>)r)], CancellationToken.None);
        await storage.AppendAsync("log", [.. written.Skip(3).Select(r => (ReadOnlyMemory<byte>)r)], CancellationToken.None);

        var read = await ReadAllAsync(storage, "log");

        Assert.Equal(written.Count, read.Count);
        for (var i = 0; i < written.Count; i++)
        {
            Assert.True(written[i].AsSpan().SequenceEqual(read[i]), $"record {i + 1} ({written[i].Length} bytes) read back as {read[i].Length} bytes");
        }

        Assert.Equal(written.Count, storage.CountOf("log"));
    }

    [Fact]
    public async Task Truncating_at_a_seal_keeps_exactly_the_records_after_it_and_marks_count_the_whole_log()
    {
        var storage = new InMemoryLogStorage();
        var records = Enumerable.Range(1, 40).Select(i => Record(i, 100_000)).ToList(); // about 10 per chunk
        await storage.AppendAsync("log", [.. records.Take(25).Select(r => (ReadOnlyMemory<byte>)r)], CancellationToken.None);
        var mark = await storage.SealAsync("log", CancellationToken.None);
        await storage.AppendAsync("log", [.. records.Skip(25).Select(r => (ReadOnlyMemory<byte>)r)], CancellationToken.None);

        await storage.TruncateAsync("log", mark, CancellationToken.None);

        Assert.Equal(25, mark);
        var kept = await ReadAllAsync(storage, "log");
        Assert.Equal(records.Skip(25).Select(r => r[0]), kept.Select(r => r[0]));
        Assert.All(kept, r => Assert.Equal(100_000, r.Length));
        Assert.Equal(40, await storage.SealAsync("log", CancellationToken.None)); // a mark is a position in the whole log

        // Everything truncated, then appended again: the log goes on from where it was.
        await storage.TruncateAsync("log", 40, CancellationToken.None);
        Assert.Equal(0, storage.CountOf("log"));
        await storage.AppendAsync("log", [Record(41, 10)], CancellationToken.None);
        Assert.Equal([41], (await ReadAllAsync(storage, "log")).Select(r => (int)r[0]));
        Assert.Equal(41, await storage.SealAsync("log", CancellationToken.None));
    }

    [Fact]
    public async Task A_reader_s_records_stay_as_they_were_while_the_log_is_appended_to_and_truncated()
    {
        var storage = new InMemoryLogStorage();
        await storage.AppendAsync("log", [Record(1, 600_000), Record(2, 600_000)], CancellationToken.None);
        var enumerator = storage.ReadAsync("log", CancellationToken.None).GetAsyncEnumerator();
        Assert.True(await enumerator.MoveNextAsync());

        await storage.AppendAsync("log", [Record(3, 600_000)], CancellationToken.None);
        await storage.TruncateAsync("log", 2, CancellationToken.None);

        Assert.True(enumerator.Current.Span.ToArray().All(b => b == 1));
        Assert.True(await enumerator.MoveNextAsync());
        Assert.True(enumerator.Current.Span.ToArray().All(b => b == 2));
        Assert.False(await enumerator.MoveNextAsync());
        await enumerator.DisposeAsync();
    }
}
