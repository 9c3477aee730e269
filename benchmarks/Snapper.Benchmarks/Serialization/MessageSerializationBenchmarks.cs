using BenchmarkDotNet.Attributes;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Serialization;
using SmallBank;
using Snapper.Coordination;
using Snapper.Protocol;

namespace Snapper.Benchmarks.Serialization;

/// <summary>
/// What Snapper's own messages cost when they cross silos, through Orleans' serializer (a grain
/// call within a silo copies instead, and the immutable ones are not even copied): the context
/// every transactional call carries, BatchMsg's sub-batch, and the token a coordinator passes on,
/// bare and carrying the prevBid of 400 actors (about what it holds under uniform load on two silos).
/// </summary>
[MemoryDiagnoser]
public class MessageSerializationBenchmarks
{
    private ServiceProvider services = null!;
    private Serializer serializer = null!;
    private TxnContext actContext = null!;
    private TxnContext pactContext = null!;
    private SubBatch subBatch = null!;
    private BatchToken idleToken = null!;
    private BatchToken busyToken = null!;
    private byte[] pactContextBytes = null!;
    private byte[] busyTokenBytes = null!;

    [GlobalSetup]
    public void Setup()
    {
        services = new ServiceCollection().AddSerializer().BuildServiceProvider();
        serializer = services.GetRequiredService<Serializer>();
        var actors = Enumerable.Range(0, 400).Select(i => ActorId.Create<IAccountActor>(10_000 + i)).ToArray();
        var deadline = DateTimeOffset.UtcNow.AddSeconds(30);
        actContext = new TxnContext(1_000_001, TxnMode.Act, actors[0], deadline);
        pactContext = new TxnContext(1_000_002, TxnMode.Pact, actors[0], deadline, bid: 5_000, declared: AccessSet.Of(actors[0]).And(actors[1]).And(actors[2]).And(actors[3])) { Coordinator = "silo-11111/0" };
        subBatch = new SubBatch(5_000, 4_990, "silo-11111/0", [(1_000_002, 1), (1_000_005, 1), (1_000_009, 2)]);
        idleToken = new BatchToken { LastTid = 1_000_010, LastBid = 5_000, LastBidCoordinator = "silo-11111/0", ResolvedThrough = 4_990 };
        busyToken = new BatchToken { LastTid = 1_000_010, LastBid = 5_000, LastBidCoordinator = "silo-11111/0", ResolvedThrough = 4_990 };
        foreach (var (actor, i) in actors.Select((a, i) => (a, i)))
        {
            busyToken.PrevBid[actor] = 4_991 + (i % 9);
        }

        pactContextBytes = serializer.SerializeToArray(pactContext);
        busyTokenBytes = serializer.SerializeToArray(busyToken);
    }

    [GlobalCleanup]
    public void Cleanup() => services.Dispose();

    [Benchmark(Description = "serialize an ACT's TxnContext")]
    public byte[] SerializeActContext() => serializer.SerializeToArray(actContext);

    [Benchmark(Description = "serialize a PACT's TxnContext (4 declared actors)")]
    public byte[] SerializePactContext() => serializer.SerializeToArray(pactContext);

    [Benchmark(Description = "deserialize a PACT's TxnContext (4 declared actors)")]
    public object DeserializePactContext() => serializer.Deserialize<TxnContext>(pactContextBytes)!;

    [Benchmark(Description = "serialize a SubBatch (BatchMsg, 3 PACTs)")]
    public byte[] SerializeSubBatch() => serializer.SerializeToArray(subBatch);

    [Benchmark(Description = "serialize the token, nothing in flight")]
    public byte[] SerializeIdleToken() => serializer.SerializeToArray(idleToken);

    [Benchmark(Description = "serialize the token, prevBid of 400 actors")]
    public byte[] SerializeBusyToken() => serializer.SerializeToArray(busyToken);

    [Benchmark(Description = "deserialize the token, prevBid of 400 actors")]
    public object DeserializeBusyToken() => serializer.Deserialize<BatchToken>(busyTokenBytes)!;
}
