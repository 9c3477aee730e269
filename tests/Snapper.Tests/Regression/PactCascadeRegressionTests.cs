using Snapper.Logging;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// Defect 4 of issue 34: a PACT aborted because it read the write of a PACT that aborted reached its
/// caller as a DeclarationError (which MaxPactAttempts never retries) when it made a declared call
/// to the actor that had already ended its turn: that actor's schedule did not ask whether the PACT
/// had aborted there. And the reader's coordinator was told only once every actor of the aborted
/// PACT had answered, one of them perhaps still running its call.
/// </summary>
public sealed class PactCascadeRegressionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task A_PACT_whose_read_is_taken_back_meets_its_own_abort_on_its_next_declared_call_and_its_caller_gets_Cascading()
    {
        await using var silo = await TestSilo.StartAsync();
        var (x, y, z, r) = (Actor("cx"), Actor("cy"), Actor("cz"), Actor("cr"));

        // P1 (root y) writes x, so its batch completes on x; its call on y goes on.
        var p1 = silo.Client.RunPact<ICascadeTestActor>(y, (a, ctx) => a.WriteThenFailOn(ctx, x, z), AccessSet.Of(y).And(x).And(z));
        await silo.Gates.Until("p1-wrote-x");

        // P2, in a later batch, declares x twice and reads P1's write with its first call.
        var p2 = silo.Client.RunPact<ICascadeTestActor, int>(r, (a, ctx) => a.ReadTwice(ctx, x), AccessSet.Of(r).And(x, calls: 2));
        await silo.Gates.Until("p2-read");

        // P1 fails on z while its call on y still runs: x takes P1's write back at once (logging
        // the state of P1's batch again) and ends P2's turn there; y answers only later.
        silo.Gates.Signal("p1-fail");
        await silo.Gates.Until("p1-failed");
        await Poll.Until(async () => (await silo.LogRecords()).OfType<BatchCompleteRecord>().Count(c => c.Actor == x) == 2, "x took P1's write back");

        // P2's second declared call to x is answered with P2's abort, and so is its caller.
        silo.Gates.Signal("p2-second");
        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => p2.WaitAsync(Bound));
        Assert.True(
            aborted.Reason == AbortReason.Cascading,
            $"P2's caller got {aborted.Reason} ({aborted.Message}); the second call to x got {SecondCall(silo)}");
        Assert.Contains("read the write of PACT", aborted.Message);
        Assert.Equal("Cascading", SecondCall(silo));

        silo.Gates.Signal("p1-release");
        Assert.Equal(AbortReason.User, (await Assert.ThrowsAsync<TransactionAbortedException>(() => p1.WaitAsync(Bound))).Reason);

        // Retried, P2 reads x without P1's write and commits.
        Assert.Equal(0, await silo.Client.RunPact<ICascadeTestActor, int>(r, (a, ctx) => a.ReadTwice(ctx, x), AccessSet.Of(r).And(x, calls: 2)).WaitAsync(Bound));
        await silo.UntilResolved();
    }

    [Fact]
    public async Task The_caller_of_a_PACT_whose_read_is_taken_back_hears_it_while_the_aborted_PACT_still_runs_elsewhere()
    {
        await using var silo = await TestSilo.StartAsync();
        var (x, y, z, r) = (Actor("wx"), Actor("wy"), Actor("wz"), Actor("wr"));
        var p1 = silo.Client.RunPact<ICascadeTestActor>(y, (a, ctx) => a.WriteThenFailOn(ctx, x, z), AccessSet.Of(y).And(x).And(z));
        await silo.Gates.Until("p1-wrote-x");

        // P2 reads P1's write on x and makes no other call there.
        var p2 = silo.Client.RunPact<ICascadeTestActor, int>(r, (a, ctx) => a.ReadThenWait(ctx, x), AccessSet.Of(r).And(x));
        await silo.Gates.Until("p2-read");
        silo.Gates.Signal("p1-fail");
        await silo.Gates.Until("p1-failed");
        silo.Gates.Signal("p2-second");

        // x has taken P1's write back; y still runs P1's call, and need not end it for P2's caller
        // to learn that P2 read a write that is gone.
        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() => p2.WaitAsync(Bound));
        Assert.Equal(AbortReason.Cascading, aborted.Reason);
        Assert.False(p1.IsCompleted);

        silo.Gates.Signal("p1-release");
        Assert.Equal(AbortReason.User, (await Assert.ThrowsAsync<TransactionAbortedException>(() => p1.WaitAsync(Bound))).Reason);
        await silo.UntilResolved();
    }

    private static string SecondCall(TestSilo silo) =>
        Enum.GetNames<AbortReason>().FirstOrDefault(reason => silo.Gates.IsSignalled($"p2-second-call:{reason}")) ?? "no abort";

    private static ActorId Actor(string key) => ActorId.Create<ICascadeTestActor>(key);
}

/// <summary>The steps of the cascade above, each stopped at a gate.</summary>
public interface ICascadeTestActor : ITransactionalActor, IGrainWithStringKey
{
    Task<int> Read(TxnContext ctx);

    Task Add(TxnContext ctx, int delta);

    Task AddThenThrow(TxnContext ctx, int delta);

    Task WriteThenFailOn(TxnContext ctx, ActorId written, ActorId failing);

    Task<int> ReadTwice(TxnContext ctx, ActorId read);

    Task<int> ReadThenWait(TxnContext ctx, ActorId read);
}

public sealed class CascadeTestActor(Gates gates) : TransactionalActor<Counter>, ICascadeTestActor
{
    public async Task<int> Read(TxnContext ctx) => (await GetState(ctx, AccessMode.Read)).Value;

    public async Task Add(TxnContext ctx, int delta) => (await GetState(ctx, AccessMode.ReadWrite)).Value += delta;

    public async Task AddThenThrow(TxnContext ctx, int delta)
    {
        await Add(ctx, delta);
        throw new InvalidOperationException("the PACT fails here");
    }

    // P1: writes `written`, then fails on `failing` and keeps its call here running until released.
    public async Task WriteThenFailOn(TxnContext ctx, ActorId written, ActorId failing)
    {
        await CallActor<ICascadeTestActor>(ctx, written, a => a.Add(ctx, 1));
        gates.Signal("p1-wrote-x");
        await gates.Until("p1-fail");
        try
        {
            await CallActor<ICascadeTestActor>(ctx, failing, a => a.AddThenThrow(ctx, 1));
        }
        catch (InvalidOperationException)
        {
            // The PACT has aborted all the same; its call here goes on until released.
        }

        gates.Signal("p1-failed");
        await gates.Until("p1-release");
    }

    // P2 with one call to `read`: reads it, then waits before it returns.
    public async Task<int> ReadThenWait(TxnContext ctx, ActorId read)
    {
        var value = await CallActor<ICascadeTestActor, int>(ctx, read, a => a.Read(ctx));
        gates.Signal("p2-read");
        await gates.Until("p2-second");
        return value;
    }

    // P2: reads `read`, waits, then makes its second declared call there.
    public async Task<int> ReadTwice(TxnContext ctx, ActorId read)
    {
        var first = await CallActor<ICascadeTestActor, int>(ctx, read, a => a.Read(ctx));
        gates.Signal("p2-read");
        await gates.Until("p2-second");
        try
        {
            return first + await CallActor<ICascadeTestActor, int>(ctx, read, a => a.Read(ctx));
        }
        catch (TransactionAbortedException e)
        {
            gates.Signal($"p2-second-call:{e.Reason}");
            throw;
        }
    }
}
