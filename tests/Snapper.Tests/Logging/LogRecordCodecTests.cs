using Snapper.Logging;

namespace Snapper.Tests.Logging;

public sealed class LogRecordCodecTests
{
    private static readonly ActorId A = ActorId.Create<Infrastructure.ITestActor>("a");
    private static readonly ActorId B = ActorId.Create<Infrastructure.ITestActor>("ü-b");

    // The records are internal; the theory gets their index.
    private static readonly LogRecord[] Samples =
    [
        new CoordPrepareRecord(42, [A, B]),
        new CoordPrepareRecord(1, []),
        new PrepareRecord(long.MaxValue, A, B, new byte[] { 1, 2, 3, 0, 255 }),
        new CoordCommitRecord(7),
        new CommitRecord(9, B, ReadOnlyMemory<byte>.Empty),
        new CommitRecord(9, B, new byte[300]),
        new BatchInfoRecord(11, "silo-a/3", [A, B]),
        new BatchCompleteRecord(11, A, "silo-a/3", new byte[] { 4, 5 }),
        new BatchCompleteRecord(11, B, "127.0.0.1:11111/0", ReadOnlyMemory<byte>.Empty),
        new BatchCommitRecord(11),
        new PrepareRecord(12, A, B, new byte[] { 7 }) { Version = 4, Delta = true },
        new CommitRecord(13, A, new byte[] { 8, 9 }) { Version = 5, Delta = true },
        new BatchCompleteRecord(14, B, "silo-a/1", new byte[] { 1 }) { Version = 6, Delta = true },
        new AfterCommitRecord(15, Batch: false, [new AfterCommitAction(15, A, 0, [1, 2]), new AfterCommitAction(15, B, 3, [])]),
        new AfterCommitRecord(16, Batch: true, [new AfterCommitAction(17, B, 0, new byte[70_000])]),
        new DeliveredRecord(17, [new AfterCommitId(15, A, 0), new AfterCommitId(17, B, 2)]),
        new DeliveredRecord(0, []),
    ];

    public static TheoryData<int> Records() => [.. Enumerable.Range(0, Samples.Length)];

    [Theory]
    [MemberData(nameof(Records))]
    public void Every_record_round_trips(int sample)
    {
        var record = Samples[sample];
        var bytes = LogRecordCodec.Encode(record);
        Assert.Equal(LogRecordCodec.CurrentVersion, bytes[0]);

        var decoded = LogRecordCodec.Decode(bytes);

        Assert.Equal(record.GetType(), decoded.GetType());
        Assert.Equal(record.Tid, decoded.Tid);
        Assert.Equal(LogRecordCodec.Encode(decoded), bytes);
    }

    [Fact]
    public void A_record_of_an_older_format_is_refused_naming_both_versions()
    {
        // Formats before this one were written only by builds that never shipped: they are not read.
        var older = LogRecordCodec.Encode(new BatchCompleteRecord(14, B, "silo-a/1", new byte[] { 1, 2 }) { Version = 6 });
        older[0] = LogRecordCodec.CurrentVersion - 1;

        var refused = Assert.Throws<InvalidDataException>(() => LogRecordCodec.Decode(older));

        Assert.Contains($"format version {LogRecordCodec.CurrentVersion - 1}; this build reads version {LogRecordCodec.CurrentVersion}", refused.Message);
    }

    [Fact]
    public void A_state_form_other_than_whole_or_delta_is_refused()
    {
        var bytes = LogRecordCodec.Encode(new CommitRecord(13, A, new byte[] { 8 }) { Version = 5, Delta = true });
        bytes[^1] = 7;
        Assert.Contains("state form", Assert.Throws<InvalidDataException>(() => LogRecordCodec.Decode(bytes)).Message);
    }

    [Fact]
    public void A_truncated_record_is_refused_with_a_message()
    {
        var bytes = LogRecordCodec.Encode(new PrepareRecord(3, A, B, new byte[] { 9, 9, 9 }));
        for (var cut = 0; cut < bytes.Length; cut++)
        {
            var failure = Assert.Throws<InvalidDataException>(() => LogRecordCodec.Decode(bytes.AsSpan(0, cut)));
            Assert.False(string.IsNullOrEmpty(failure.Message));
        }
    }

    [Fact]
    public void A_CoordCommit_keeps_its_dependencies()
    {
        var withDependencies = new CoordCommitRecord(9) { DependsOn = [3, 7] };
        var decoded = Assert.IsType<CoordCommitRecord>(LogRecordCodec.Decode(LogRecordCodec.Encode(withDependencies)));
        Assert.Equal([3L, 7L], decoded.DependsOn.ToArray());
    }

    [Fact]
    public void A_record_of_another_version_or_kind_or_with_trailing_bytes_is_refused()
    {
        var bytes = LogRecordCodec.Encode(new CoordCommitRecord(5));

        var newer = (byte[])bytes.Clone();
        newer[0] = LogRecordCodec.CurrentVersion + 1;
        Assert.Contains($"format version {LogRecordCodec.CurrentVersion + 1}", Assert.Throws<InvalidDataException>(() => LogRecordCodec.Decode(newer)).Message);

        var unknownKind = (byte[])bytes.Clone();
        unknownKind[1] = 99;
        Assert.Contains("unknown kind 99", Assert.Throws<InvalidDataException>(() => LogRecordCodec.Decode(unknownKind)).Message);

        Assert.Contains("trailing", Assert.Throws<InvalidDataException>(() => LogRecordCodec.Decode([.. bytes, 0])).Message);
    }
}
