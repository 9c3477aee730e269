using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Hosting;
using Snapper.Pact;

namespace Snapper.Coordination;

/// <summary>
/// A coordinator's room for batches that must abort: the abort cascade a failed batch starts
/// (Snapper §4.2.5), and the declaration sweep that aborts a PACT whose declared actor is never
/// called.
/// </summary>
/// <remarks>
/// <para><b>Abort cascade.</b> A PACT whose writes an ACT read (or a failed log write) fails its
/// batch b. The paper aborts every uncommitted batch; here the batches before b are left to commit,
/// and every batch emitted after b up to the point the cascade is <em>sealed</em> aborts, since each
/// may have read b's writes: the coordinator that holds the token next seals the cascade at the
/// token's last bid T (emission pauses while it holds the token), tells the other coordinators T,
/// and each doomed batch aborts once its predecessor has resolved — b with the PACTs' causes, the
/// batches after it because their predecessor's outcome says "aborted through T". Participants roll
/// back the batches from the aborted one through T. When batch T has resolved, nothing of the
/// cascade is left in any schedule, so the token forgets its prevBids and emission resumes; a batch
/// formed after that follows T but is beyond it, so T's outcome does not doom it. A failover ends
/// the cascade of the batches it aborted at its seal (<see cref="Sealed"/>).</para>
/// <para><b>Declaration sweep.</b> A declared actor that is never called would stall its batch,
/// and every later batch on its actors, for ever. While this coordinator has unresolved batches, a
/// timer looks for one that has not completed and could have run for longer than the declaration
/// timeout, asks its stalled participants which PACT it waits for, and aborts that PACT with
/// <see cref="AbortReason.DeclarationError"/> naming it (the whole batch if that PACT's abort is
/// already under way and still stalls it). A batch found held up on an actor by what is ahead of it
/// there (ACTs, an earlier batch) has its time counted afresh.</para>
/// </remarks>
internal sealed class Cascades(string key, IGrainBase grain, SnapperOptions settings, ActorResolver actors, TimeProvider clock, ILogger diagnostics)
{
    // A healthy actor answers at once; one that does not within this is taken as unresponsive.
    private const long Unresponsive = -2;
    private static readonly TimeSpan UnresponsiveAfter = TimeSpan.FromSeconds(1);

    private TokenRing ring = null!;
    private BatchPipeline pipeline = null!;
    private bool holdsToken;     // holding the token until a cascade this coordinator sealed has ended
    private long ongoingThrough; // T of a cascade sealed anywhere and not known to be over (0: none)
    private IGrainTimer? declarationSweep;

    /// <summary>This coordinator holds the token until the cascade it sealed has ended: no batch is formed.</summary>
    public bool HoldsToken => holdsToken;

    /// <summary>The end T of a cascade sealed anywhere and not known to be over; 0: none.</summary>
    public long OngoingThrough => ongoingThrough;

    /// <summary>A batch here failed: the token, when it comes, seals a cascade.</summary>
    public bool NeedsSeal => pipeline.HasUnsealedFailure;

    public void Connect(TokenRing tokenRing, BatchPipeline batches)
    {
        ring = tokenRing;
        pipeline = batches;
    }

    /// <summary>The token came: a cascade that another coordinator held it for has ended.</summary>
    public void TokenArrived()
    {
        if (!holdsToken)
        {
            ongoingThrough = 0;
        }
    }

    /// <summary>
    /// The token is here and a batch of this coordinator failed: everything emitted so far is in the
    /// cascade. Holds the token (no batch is formed meanwhile) until the cascade has ended.
    /// </summary>
    public void Seal(BatchToken held)
    {
        holdsToken = true;
        var through = held.LastBid;
        ongoingThrough = through;
        pipeline.SealFailed(through);
        ring.TellOthers(c => c.CascadeSealed(through));
        _ = End(held, through, held.LastBidCoordinator);
    }

    /// <summary>
    /// <see cref="ICoordinator.CascadeSealed"/> from the sealing coordinator, or
    /// <see cref="ICoordinator.FailOver"/>: the own failed batches up to <paramref name="through"/> end there.
    /// </summary>
    public void Sealed(long through)
    {
        ongoingThrough = Math.Max(ongoingThrough, through);
        pipeline.SealFailed(through);
    }

    /// <summary>Starts the declaration sweep if it is not running (a batch was formed).</summary>
    public void EnsureDeclarationSweep()
    {
        if (declarationSweep is not null)
        {
            return;
        }

        var period = TimeSpan.FromTicks(Math.Clamp(settings.DeclarationTimeout.Ticks / 4, TimeSpan.FromMilliseconds(10).Ticks, TimeSpan.FromSeconds(1).Ticks));
        declarationSweep = grain.RegisterGrainTimer(SweepDeclarations, period, period);
    }

    private async Task End(BatchToken held, long through, string? throughCoordinator)
    {
        await pipeline.OutcomeOf(through, throughCoordinator); // every batch up to T has resolved

        // No batch of the cascade is left in any schedule: the prevBids in the token point at
        // batches that are committed or gone (§4.2.5).
        held.PrevBid.Clear();
        held.ResolvedThrough = Math.Max(held.ResolvedThrough, through);
        LogMessages.PactCascade(diagnostics, key, through);
        holdsToken = false;
        ongoingThrough = 0;
        ring.Resume();
    }

    private async Task SweepDeclarations()
    {
        if (pipeline.Unresolved == 0)
        {
            declarationSweep?.Dispose();
            declarationSweep = null;
            return;
        }

        var overdue = pipeline.Overdue(clock.GetUtcNow(), settings.DeclarationTimeout);
        if (overdue is null || ongoingThrough != 0)
        {
            return;
        }

        var waits = await Task.WhenAll(overdue.Pending.ToList().Select(actor => Describe(actor, overdue.Bid)));
        if (Array.Find(waits, w => w.Tid == Unresponsive) is { Description: { } silent })
        {
            // An actor whose activation is going takes no message until the calls running there
            // return, and one of them may wait for this batch: abort it, so those calls can end.
            pipeline.FailBatch(overdue, 0, new TransactionAbortedException(AbortReason.Cascading, $"aborted with its batch {overdue.Bid}, which was stalled: {silent}"));
            return;
        }

        if (waits.Any(w => w.Tid == LocalSchedule.HeldUp))
        {
            // Queued behind ACTs (which have the transaction timeout) or an earlier batch (which has
            // its own declaration timeout) on some actor, its PACTs may be waiting for that actor:
            // the time it could not run does not count against their declarations.
            overdue.RunnableSince = clock.GetUtcNow();
            return;
        }

        if (Array.Exists(waits, w => w.Tid == LocalSchedule.NotArrived) && Array.TrueForAll(waits, w => w.Tid is 0 or LocalSchedule.NotArrived))
        {
            // Its BatchMsg was lost on the way to an actor (a one-way message that Orleans could not
            // forward to the actor's next activation, say), and no PACT of it waits anywhere.
            pipeline.FailBatch(overdue, 0, new TransactionAbortedException(AbortReason.Cascading, $"aborted with its batch {overdue.Bid}, which was stalled: {string.Join("; ", waits.Select(w => w.Description))}"));
            return;
        }

        foreach (var (tid, description) in waits)
        {
            if (tid != 0)
            {
                var stalled = new TransactionAbortedException(
                    AbortReason.DeclarationError,
                    $"{description} within the declaration timeout of {settings.DeclarationTimeout}") { Tid = tid };
                pipeline.FailBatch(overdue, overdue.PactFailures?.ContainsKey(tid) == true ? 0 : tid, stalled);
                return;
            }
        }
    }

    // What the batch waits for on one actor; Unresponsive if the actor does not say within
    // UnresponsiveAfter (a deactivating activation takes no message while its calls run).
    private async Task<(long Tid, string Description)> Describe(ActorId actor, long bid)
    {
        try
        {
            return await actors.Participant(actor).DescribeWait(bid).WaitAsync(UnresponsiveAfter, clock);
        }
        catch (TimeoutException)
        {
            return (Unresponsive, $"actor {actor} did not say what it waits for within {UnresponsiveAfter}");
        }
    }
}
