using System.Collections.Concurrent;
using Snapper.Tests.Infrastructure;
using static Snapper.Tests.Act.PromotionSites;

namespace Snapper.Tests.Regression;

/// <summary>
/// Issue 49, defect 3: a reconnaissance kept a written copy per call, so a second call to the same
/// actor in the same run read the old state (a body adding 1 until it read back +3 never ended),
/// and nothing bounded it: it spun on the silo until the client's response timeout. Each test's
/// call site is primed as under skew, so the reconnaissance comes first.
/// </summary>
public sealed class ReconnaissanceRegressionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(15);

    [Fact]
    public async Task A_reconnaissance_reads_its_own_writes_so_a_body_adding_until_it_reads_back_three_makes_three_calls_and_commits()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (LoopActor("own-a"), LoopActor("own-b"));
        var runs = new ConcurrentQueue<string>();
        Func<IReconnaissanceLoopActor, TxnContext, Task<int>> body = (x, ctx) =>
        {
            runs.Enqueue(ctx.Reconnaissance ? "reconnaissance" : ctx.Mode.ToString());
            return x.AddUntilRisen(ctx, b, 3, delayMs: 0);
        };
        AsUnderSkew(silo, body, firstRunsRefused: true);

        // Three calls in any serial run: the reconnaissance made three, the PACT declared them.
        Assert.Equal(3, await silo.Client.RunAct(a, body).WaitAsync(Bound));
        Assert.Equal(["reconnaissance", "Pact"], runs);
        Assert.Equal(3, ReconnaissanceLoopActor.ReconnaissanceCalls("own-b"));
        Assert.Equal(3, await ReadLoop(silo, b));

        // Nothing of the run outlives it.
        await Poll.Until(() => WritesKept(silo, a) + WritesKept(silo, b) == 0, "the run's writes are dropped");
        await silo.UntilResolved();
    }

    [Fact]
    public async Task Calls_back_and_in_parallel_within_a_reconnaissance_read_the_runs_writes()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b, c) = (LoopActor("back-a"), LoopActor("back-b"), LoopActor("back-c"));
        Func<IReconnaissanceLoopActor, TxnContext, Task<int>> body = (x, ctx) => x.CheckOwnWrites(ctx, b, c);
        AsUnderSkew(silo, body, firstRunsRefused: true);

        // A serial run sees a's write through b's call back, and b's parallel writes add up: it
        // never calls c, and neither does the reconnaissance.
        Assert.Equal(0, await silo.Client.RunAct(a, body).WaitAsync(Bound));
        Assert.Equal(0, ReconnaissanceLoopActor.ReconnaissanceCalls("back-c"));
        Assert.Equal((1, 2, 0), (await ReadLoop(silo, a), await ReadLoop(silo, b), await ReadLoop(silo, c)));
        await Poll.Until(() => WritesKept(silo, a) + WritesKept(silo, b) == 0, "the run's writes are dropped");
        await silo.UntilResolved();
    }

    [Fact]
    public async Task A_reconnaissance_past_its_deadline_stops_and_the_caller_gets_a_Timeout_abort_well_within_the_response_timeout()
    {
        var timeout = TimeSpan.FromSeconds(1);
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.TransactionTimeout = timeout));
        var (a, b) = (LoopActor("late-a"), LoopActor("late-b"));

        // It adds 1 until it reads back what it started from: never, one slow call at a time.
        Func<IReconnaissanceLoopActor, TxnContext, Task<int>> body = (x, ctx) => x.AddUntilRisen(ctx, b, 0, delayMs: 20);
        AsUnderSkew(silo, body, firstRunsRefused: true);

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct(a, body).WaitAsync(Bound));
        Assert.Equal(AbortReason.Timeout, aborted.Reason);
        Assert.Contains("deadline", aborted.Message);
        Assert.InRange(ReconnaissanceLoopActor.ReconnaissanceCalls("late-b"), 1, ReconnaissanceParticipantMaxCalls - 1);

        // It wrote nothing, and keeps nothing.
        Assert.Equal(0, await ReadLoop(silo, b));
        await Poll.Until(() => WritesKept(silo, b) == 0, "the run's writes are dropped");
    }

    [Fact]
    public async Task A_reconnaissance_that_never_ends_stops_at_its_call_bound_before_its_deadline()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (LoopActor("spin-a"), LoopActor("spin-b"));
        Func<IReconnaissanceLoopActor, TxnContext, Task<int>> body = (x, ctx) => x.AddUntilRisen(ctx, b, 0, delayMs: 0);
        AsUnderSkew(silo, body, firstRunsRefused: true);

        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct(a, body).WaitAsync(Bound));
        Assert.Equal(AbortReason.Timeout, aborted.Reason);
        Assert.Contains("never ends", aborted.Message);
        Assert.Equal(ReconnaissanceParticipantMaxCalls, ReconnaissanceLoopActor.ReconnaissanceCalls("spin-b"));
        Assert.Equal(0, await ReadLoop(silo, b));
        await Poll.Until(() => WritesKept(silo, b) == 0, "the run's writes are dropped");
    }

    private const int ReconnaissanceParticipantMaxCalls = Snapper.Reconnaissance.ReconnaissanceParticipant<Counter>.MaxCalls;

    private static ActorId LoopActor(string key) => ActorId.Create<IReconnaissanceLoopActor>(key);

    private static Task<int> ReadLoop(TestSilo silo, ActorId actor) =>
        silo.Client.RunPact<IReconnaissanceLoopActor, int>(actor, (x, ctx) => x.Read(ctx), AccessSet.Of(actor));

    private static int WritesKept(TestSilo silo, ActorId actor) => silo.Actor<Counter>(actor).Reconnaissance.Writes.Count;
}

/// <summary>Bodies whose calls depend on what they wrote before (ReconnaissanceRegressionTests).</summary>
public interface IReconnaissanceLoopActor : ITransactionalActor, IGrainWithStringKey
{
    Task<int> Read(TxnContext ctx);

    Task<int> AddThenRead(TxnContext ctx, int delta, int delayMs);

    Task<int> AddUntilRisen(TxnContext ctx, ActorId target, int rise, int delayMs);

    Task<int> ReadOf(TxnContext ctx, ActorId target);

    Task<int> CheckOwnWrites(TxnContext ctx, ActorId b, ActorId c);
}

public sealed class ReconnaissanceLoopActor : TransactionalActor<Counter>, IReconnaissanceLoopActor
{
    private static readonly ConcurrentDictionary<string, int> Reconnoitred = new();

    /// <summary>How many reconnaissance calls reached the actor of <paramref name="key"/> (keys are unique to a test).</summary>
    public static int ReconnaissanceCalls(string key) => Reconnoitred.GetValueOrDefault(key);

    public async Task<int> Read(TxnContext ctx) => (await GetState(ctx, AccessMode.Read)).Value;

    public async Task<int> AddThenRead(TxnContext ctx, int delta, int delayMs)
    {
        if (ctx.Reconnaissance)
        {
            Reconnoitred.AddOrUpdate(this.GetPrimaryKeyString(), 1, (_, n) => n + 1);
        }

        var state = await GetState(ctx, AccessMode.ReadWrite);
        state.Value += delta;
        var value = state.Value;
        if (delayMs > 0)
        {
            await Task.Delay(delayMs);
        }

        return value;
    }

    // Adds 1 on target until it reads back `rise` more than it started from: `rise` calls in any
    // serial run (none ends for a rise of 0). Returns the calls it made.
    public async Task<int> AddUntilRisen(TxnContext ctx, ActorId target, int rise, int delayMs)
    {
        var calls = 1;
        var read = await CallActor<IReconnaissanceLoopActor, int>(ctx, target, x => x.AddThenRead(ctx, 1, delayMs));
        var start = read - 1;
        while (read != start + rise)
        {
            read = await CallActor<IReconnaissanceLoopActor, int>(ctx, target, x => x.AddThenRead(ctx, 1, delayMs));
            calls++;
        }

        return calls;
    }

    public Task<int> ReadOf(TxnContext ctx, ActorId target) =>
        CallActor<IReconnaissanceLoopActor, int>(ctx, target, x => x.Read(ctx));

    // Writes here, has b call back to read it, and adds 1 twice on b in parallel: a serial run reads
    // its write back and two different values from b, so it never calls c. Returns c's calls.
    public async Task<int> CheckOwnWrites(TxnContext ctx, ActorId b, ActorId c)
    {
        var own = await GetState(ctx, AccessMode.ReadWrite);
        own.Value += 1;
        var seen = await CallActor<IReconnaissanceLoopActor, int>(ctx, b, x => x.ReadOf(ctx, Id));
        var both = await Task.WhenAll(
            CallActor<IReconnaissanceLoopActor, int>(ctx, b, x => x.AddThenRead(ctx, 1, 0)),
            CallActor<IReconnaissanceLoopActor, int>(ctx, b, x => x.AddThenRead(ctx, 1, 0)));
        if (seen == own.Value && both[0] != both[1])
        {
            return 0;
        }

        await CallActor<IReconnaissanceLoopActor, int>(ctx, c, x => x.AddThenRead(ctx, 0, 0));
        return 1;
    }
}
