using System.Buffers;
using BenchmarkDotNet.Attributes;
using Snapper.Logging;

namespace Snapper.Benchmarks.Logging;

/// <summary>Encoding and decoding the records every commit writes.</summary>
[MemoryDiagnoser]
public class LogRecordCodecBenchmarks
{
    private static readonly ActorId Actor = ActorId.Create<IBenchActor>("account-4711");
    private static readonly ActorId Root = ActorId.Create<IBenchActor>("account-1");
    private readonly ArrayBufferWriter<byte> buffer = new(512);
    private PrepareRecord prepare = null!;
    private byte[] encoded = [];

    [Params(64, 1024)]
    public int StateBytes { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        prepare = new PrepareRecord(123_456_789, Actor, Root, new byte[StateBytes]);
        encoded = LogRecordCodec.Encode(prepare);
    }

    [Benchmark(Description = "encode Prepare into a reused buffer")]
    public int EncodeIntoBuffer()
    {
        buffer.ResetWrittenCount();
        LogRecordCodec.Encode(prepare, buffer);
        return buffer.WrittenCount;
    }

    [Benchmark(Description = "encode Prepare to a new array (what LogWriter does)")]
    public byte[] EncodeToArray() => LogRecordCodec.Encode(prepare);

    [Benchmark(Description = "decode Prepare")]
    public object Decode() => LogRecordCodec.Decode(encoded);
}

/// <summary>An actor interface for ids in benchmarks.</summary>
public interface IBenchActor : ITransactionalActor
{
}
