using Microsoft.Extensions.DependencyInjection;
using Snapper.Logging;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Pact;

/// <summary>
/// A PACT aborts alone (docs/architecture.md, "A PACT aborts alone"): a PACT that fails takes back
/// its own writes, even on an actor whose batch has completed, and takes the PACTs that read them
/// with it; its batch and the batches after it go on without them. Only when an ACT read its writes
/// does its whole batch abort, with the cascade after it.
/// </summary>
public sealed class PactAbortTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task A_PACT_that_fails_after_its_batch_completed_on_another_actor_takes_its_write_back_there_and_later_batches_commit()
    {
        var storage = new ScriptedLogStorage();
        await using var silo = await TestSilo.StartAsync(configure: null, services => services.AddSingleton<ILogStorage>(storage));
        var (x, y, z) = (Actor("x"), Actor("y"), Actor("z"));

        // P1 writes x (its batch completes there), then waits on y; P3, on z, is in a later batch.
        var p1 = silo.Client.RunPact<ITestActor>(y, (a, ctx) => a.CallThenWait(ctx, x, "p1-called-x", "p1-fail", thenThrow: true), AccessSet.Of(y).And(x));
        await silo.Gates.Until("p1-called-x");
        var p3 = silo.Client.RunPact<ITestActor>(z, (a, ctx) => a.Add(ctx, 1), AccessSet.Of(z));
        await Poll.Until(async () => (await silo.LogRecords()).OfType<BatchCompleteRecord>().Any(r => r.Actor == z), "P3's batch completed on z");

        silo.Gates.Signal("p1-fail");
        Assert.Equal(AbortReason.User, (await Assert.ThrowsAsync<TransactionAbortedException>(() => p1.WaitAsync(Bound))).Reason);
        await p3.WaitAsync(Bound); // no cascade: nobody read P1's write
        Assert.Equal(0, await Read(silo, x));
        Assert.Equal(1, await Read(silo, z));

        // x's state is logged again without P1's write, and recovery takes the later record.
        var records = await silo.LogRecords();
        Assert.Equal(2, records.OfType<BatchCompleteRecord>().Count(r => r.Actor == x));
        var image = await storage.ImageAsync();
        await using var recovered = await TestSilo.StartAsync(configure: null, services => services.AddSingleton<ILogStorage>(image));
        Assert.Equal(0, await Read(recovered, x));
        Assert.Equal(1, await Read(recovered, z));
    }

    [Fact]
    public async Task A_PACT_whose_write_another_PACT_read_takes_that_reader_with_it_and_nothing_else()
    {
        await using var silo = await TestSilo.StartAsync();
        var (x, y, z) = (Actor("rx"), Actor("ry"), Actor("rz"));
        var p1 = silo.Client.RunPact<ITestActor>(y, (a, ctx) => a.CallThenWait(ctx, x, "p1-called-x", "p1-fail", thenThrow: true), AccessSet.Of(y).And(x));
        await silo.Gates.Until("p1-called-x");

        // P2, in a later batch, reads P1's write on x before P1 fails.
        var p2 = silo.Client.RunPact<ITestActor, int>(x, (a, ctx) => a.ReadBetweenGates(ctx, "p2-read", "p2-go"), AccessSet.Of(x));
        await silo.Gates.Until("p2-read");

        // P3, in a batch after P2's, writes z and reads nothing of P1's.
        var p3 = silo.Client.RunPact<ITestActor>(z, (a, ctx) => a.Add(ctx, 3), AccessSet.Of(z));

        silo.Gates.Signal("p1-fail");
        var failed = await Assert.ThrowsAsync<TransactionAbortedException>(() => p1.WaitAsync(Bound));
        Assert.Equal(AbortReason.User, failed.Reason);
        silo.Gates.Signal("p2-go");
        var cascaded = await Assert.ThrowsAsync<TransactionAbortedException>(() => p2.WaitAsync(Bound));
        Assert.Equal(AbortReason.Cascading, cascaded.Reason);
        Assert.Equal((x, BlockedOn.Transaction, failed.Tid), (cascaded.Blocker!.Actor, cascaded.Blocker.WaitedFor, Assert.Single(cascaded.Blocker.Tids))); // P1's write on x (issue 54)
        await p3.WaitAsync(Bound);
        Assert.Equal(0, await Read(silo, x));
        Assert.Equal(3, await Read(silo, z));

        // The ring goes on.
        await silo.Client.RunPact<ITestActor>(x, (a, ctx) => a.Add(ctx, 2), AccessSet.Of(x)).WaitAsync(Bound);
        Assert.Equal(2, await Read(silo, x));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task The_readers_of_a_reader_abort_too_on_another_actor_and_later_batches_that_read_nothing_commit()
    {
        await using var silo = await TestSilo.StartAsync();
        var (x, y, w, z) = (Actor("tx"), Actor("ty"), Actor("tw"), Actor("tz"));
        var p1 = silo.Client.RunPact<ITestActor>(y, (a, ctx) => a.CallThenWait(ctx, x, "p1-called-x", "p1-fail", thenThrow: true), AccessSet.Of(y).And(x));
        await silo.Gates.Until("p1-called-x");

        // P2 reads P1's write on x and writes w; P4, in a later batch, reads P2's write on w.
        var p2 = silo.Client.RunPact<ITestActor>(x, (a, ctx) => a.AddThenCall(ctx, 1, w, 1), AccessSet.Of(x).And(w));
        await Poll.Until(async () => (await silo.LogRecords()).OfType<BatchCompleteRecord>().Any(r => r.Actor == w), "P2's batch completed on w");
        var p4 = silo.Client.RunPact<ITestActor, int>(w, (a, ctx) => a.ReadBetweenGates(ctx, "p4-read", "p4-go"), AccessSet.Of(w));
        await silo.Gates.Until("p4-read");
        var p5 = silo.Client.RunPact<ITestActor>(z, (a, ctx) => a.Add(ctx, 5), AccessSet.Of(z));

        silo.Gates.Signal("p1-fail");
        Assert.Equal(AbortReason.User, (await Assert.ThrowsAsync<TransactionAbortedException>(() => p1.WaitAsync(Bound))).Reason);
        Assert.Equal(AbortReason.Cascading, (await Assert.ThrowsAsync<TransactionAbortedException>(() => p2.WaitAsync(Bound))).Reason);
        silo.Gates.Signal("p4-go");
        Assert.Equal(AbortReason.Cascading, (await Assert.ThrowsAsync<TransactionAbortedException>(() => p4.WaitAsync(Bound))).Reason);
        await p5.WaitAsync(Bound);
        Assert.Equal(0, await Read(silo, x));
        Assert.Equal(0, await Read(silo, w));
        Assert.Equal(5, await Read(silo, z));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task A_PACT_that_never_makes_a_declared_call_aborts_alone_and_the_actor_waiting_for_it_goes_on()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("da"), Actor("db"));

        // The first PACT declares b but throws on a before calling it: b skips its turn.
        var failing = silo.Client.RunPact<ITestActor>(a, (t, ctx) => t.AddThenThrow(ctx, 5, "before calling b"), AccessSet.Of(a).And(b));
        var others = Enumerable.Range(0, 8).Select(_ => silo.Client.RunPact<ITestActor>(a, (t, ctx) => t.AddThenCall(ctx, 1, b, 1), AccessSet.Of(a).And(b))).ToArray();

        Assert.Equal(AbortReason.User, (await Assert.ThrowsAsync<TransactionAbortedException>(() => failing.WaitAsync(Bound))).Reason);
        await Task.WhenAll(others).WaitAsync(Bound);
        Assert.Equal(8, await Read(silo, a));
        Assert.Equal(8, await Read(silo, b));
    }

    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    private static Task<int> Read(TestSilo silo, ActorId actor) => silo.Client.RunAct<ITestActor, int>(actor, (a, ctx) => a.Read(ctx));
}
