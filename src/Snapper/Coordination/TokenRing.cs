using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;
using Snapper.Logging;
using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>
/// A coordinator's room for the token (Snapper §4.2.1–4.2.2): taking each pass once, handing out
/// ACT tid ranges under a logged reservation, letting the batch pipeline form a batch, passing the
/// token on, parking it when the ring is idle and waking it, and dropping it when a silo departs.
/// </summary>
/// <remarks>
/// <para>An idle ring parks its token: after a full lap that found nothing to do, the holder keeps
/// it and tells the other coordinators where it is; the first of them to get work wakes it. As a
/// safety net against a lost announcement, a coordinator that has waited for the token a while
/// wakes every coordinator (a wake reaching one that does not hold a parked token is ignored).</para>
/// <para>After a departure (<see cref="Halt"/>) this coordinator drops its token and every token of
/// an older view still on its way: the dead silo may have held it, and the survivors cannot know
/// whether it did. The failover starts a new token with the new view.</para>
/// </remarks>
internal sealed class TokenRing(string key, string incarnation, IGrainBase grain, LogWriter? log, CoordinatorReferences coordinators, TimeProvider clock, ILogger diagnostics)
{
    private static readonly TimeSpan WakeAfter = TimeSpan.FromMilliseconds(100);

    private readonly string silo = CoordinatorKey.SiloOf(key); // once: the checks on each pass allocate nothing

    // How many tids one TidReservation record covers beyond what is asked for at the time: one log
    // write per million tids, and a restart skips at most that many.
    private const long TidReservationChunk = 1 << 20;

    private BatchPipeline pipeline = null!;
    private Cascades cascades = null!;
    private RingView view = RingView.Empty;
    private BatchToken? token;
    private bool parked;
    private bool reserving; // holding the token while a TidReservation is being logged
    private bool sawToken;
    private (long Generation, long Pass) lastPass; // the last pass of the token taken here
    private (string? Holder, long Parkings) parkedAt;
    private List<PendingTids> tidRequests = [];
    private IGrainTimer? wakeTimer;
    private long haltedBefore; // tokens of views older than this epoch are dropped: a failover replaced them
    private long tidHighWater; // the highest tid this coordinator saw that may have been handed out
    private Membership membership;
    private CoordinatorLeftRingException? leftBecause; // set with Membership.Left

    private enum Membership
    {
        NotYetIn, // no view with this coordinator seen yet
        Member,
        Left, // a newer view has it no more, or its silo is stopping: it never holds the token again
    }

    public bool HoldsToken => token is not null;

    public bool Parked => parked;

    public bool SawToken => sawToken;

    public RingView View => view;

    public int WaitingTidRequests => tidRequests.Count;

    // Whether the token is needed here now.
    private bool HasWork => pipeline.ReadyToForm || tidRequests.Count > 0 || cascades.NeedsSeal;

    public void Connect(BatchPipeline batches, Cascades aborts)
    {
        pipeline = batches;
        cascades = aborts;
    }

    /// <summary><see cref="ICoordinator.PassToken"/>.</summary>
    public void Arrived(BatchToken arrived, long pass)
    {
        NoteTids(arrived);
        if (arrived.View.NamesAnotherIncarnation(silo, incarnation))
        {
            // Meant for the coordinator of this key on an earlier incarnation of this silo, which
            // died and may have taken it: taken here too, the same tids would be handed out twice.
            // Refused before anything else, so the sender never reads it as taken; it tries again
            // until the failover of the dead incarnation halts it and makes a new token.
            throw new PassForAnotherIncarnationException(key, arrived.View.Epoch);
        }

        if (arrived.View.Epoch < haltedBefore)
        {
            return; // a token of the ring before a failover: the failover made a new one
        }

        if (arrived.Generation < lastPass.Generation || (arrived.Generation == lastPass.Generation && pass <= lastPass.Pass))
        {
            // Taken already: its sender timed out waiting for the answer and passed it again, or
            // this is the late first delivery. Taking it twice would make two holders.
            LogMessages.TokenPassRepeated(diagnostics, key, pass);
            return;
        }

        if (membership == Membership.Left)
        {
            // Not taken, and the sender hears it: it passes the token along its newest view, which
            // has this coordinator no more (Pass). Taken, it would go round a second time.
            throw leftBecause!;
        }

        lastPass = (arrived.Generation, pass);
        token = arrived;
        sawToken = true;
        parked = false;
        view = RingView.Newer(view, arrived.View);
        arrived.View = view;
        NoteMembership();
        cascades.TokenArrived();
        OnToken();
    }

    /// <summary><see cref="ICoordinator.UpdateView"/>.</summary>
    public void UpdateView(RingView newer)
    {
        view = RingView.Newer(view, newer);
        if (token is { } held)
        {
            held.View = RingView.Newer(held.View, view);
            if (parked && !view.Has(key, silo, incarnation) && view.Members.Length > 0)
            {
                // This coordinator's silo is leaving: the token must not stay with it.
                parked = false;
                PassOn();
            }
        }

        NoteMembership();
    }

    /// <summary><see cref="ICoordinator.TokenParked"/>.</summary>
    public void ParkedAt(string holder, long parkings)
    {
        if (parkings > parkedAt.Parkings)
        {
            parkedAt = (holder, parkings);
            if (token is null && HasWork)
            {
                WakeHolder();
            }
        }
    }

    /// <summary><see cref="ICoordinator.Wake"/>.</summary>
    public void Wake()
    {
        if (token is { } held && parked)
        {
            parked = false;
            held.IdleVisits = 0;
            OnToken();
        }
    }

    /// <summary><see cref="ICoordinator.AllocateActTids"/>.</summary>
    public Task<TidRange> AllocateTids(int count)
    {
        if (membership == Membership.Left)
        {
            return Task.FromException<TidRange>(leftBecause!);
        }

        var pending = new PendingTids(count);
        tidRequests.Add(pending);
        Request();
        return pending.Allocated.Task;
    }

    /// <summary>
    /// <see cref="ICoordinator.Halt"/>: drops the token and tokens of views before
    /// <paramref name="epoch"/>; returns the highest tid that may have been handed out.
    /// </summary>
    public long Halt(long epoch)
    {
        haltedBefore = Math.Max(haltedBefore, epoch);
        if (token is { } held)
        {
            NoteTids(held);
            token = null;
            parked = false;
        }

        return Math.Max(tidHighWater, view.TidFloor);
    }

    /// <summary>
    /// Someone here needs the token: take it off the shelf if it is parked here, else wake the
    /// coordinator it was last seen parked at. A token under way will get here by itself.
    /// </summary>
    public void Request()
    {
        if (token is { } held)
        {
            if (parked)
            {
                parked = false;
                held.IdleVisits = 0;
                OnToken();
            }

            return;
        }

        WakeHolder();
        wakeTimer ??= grain.RegisterGrainTimer(WakeEveryone, WakeAfter, WakeAfter);
    }

    /// <summary>The token is still here and what held it (a cascade) let it go: carry on.</summary>
    public void Resume() => OnToken();

    /// <summary>Sends <paramref name="message"/> to every other coordinator of the ring, one-way; a failure is logged.</summary>
    public void TellOthers(Func<ICoordinator, Task> message)
    {
        foreach (var member in view.Members)
        {
            if (member != key)
            {
                _ = Send(member, message);
            }
        }
    }

    // The token is here: hand out tids, form a batch, pass the token on (or park it, or hold it for
    // an abort cascade), then emit the batch.
    private void OnToken()
    {
        if (token is not { } held || cascades.HoldsToken || reserving)
        {
            return;
        }

        if (cascades.NeedsSeal)
        {
            cascades.Seal(held);
            return;
        }

        held.ResolvedThrough = Math.Max(held.ResolvedThrough, pipeline.ResolvedThrough);
        held.ForgetResolved();
        held.LastTid = Math.Max(held.LastTid, view.TidFloor);
        var forming = pipeline.ReadyToForm;
        if (tidRequests.Count == 0 && !forming)
        {
            // Out of the ring, it never parks the token: its activation goes soon, and with it the token.
            if (++held.IdleVisits >= Math.Max(1, view.Members.Length) && membership != Membership.Left)
            {
                Park(held);
                return;
            }

            PassOn();
            return;
        }

        held.IdleVisits = 0;
        long wanted = forming ? pipeline.Waiting : 0;
        foreach (var request in tidRequests)
        {
            wanted += request.Count;
        }

        if (log is not null && held.LastTid + wanted > held.ReservedThrough)
        {
            _ = Reserve(held, held.LastTid + wanted + TidReservationChunk);
            return;
        }

        foreach (var request in tidRequests)
        {
            var first = held.LastTid + 1;
            held.LastTid += request.Count;
            request.Allocated.TrySetResult(new TidRange(first, request.Count));
        }

        tidRequests = [];
        var formed = forming ? pipeline.Form(held) : null;

        // Passed on as soon as the batch is formed, before it is emitted, executed or committed (§4.2.1).
        PassOn();
        if (formed is not null)
        {
            _ = pipeline.Emit(formed);
        }
    }

    // Logs that tids up to `through` may be handed out, holding the token meanwhile, then carries on
    // where OnToken stopped. If the log cannot take it, the PACTs and tid requests waiting here fail:
    // handing out tids that a restart could hand out again would break their uniqueness.
    private async Task Reserve(BatchToken held, long through)
    {
        reserving = true;
        tidHighWater = Math.Max(tidHighWater, through); // may be durable, and handed out, before this coordinator is asked
        try
        {
            await log!.Append(new TidReservationRecord(through));
            held.ReservedThrough = through;
        }
        catch (Exception e)
        {
            var failure = new TransactionAbortedException(AbortReason.Failure, $"coordinator {key} could not log a tid reservation: {e.Message}", e);
            pipeline.FailWaiting(failure);
            foreach (var request in tidRequests)
            {
                request.Allocated.TrySetException(failure);
            }

            tidRequests = [];
        }
        finally
        {
            reserving = false;
        }

        OnToken();
    }

    private void Park(BatchToken held)
    {
        parked = true;
        held.Parkings++;
        var parkings = held.Parkings;
        TellOthers(c => c.TokenParked(key, parkings));
    }

    private void PassOn()
    {
        var passing = token!;
        NoteTids(passing);
        token = null;
        _ = Pass(passing);
    }

    // Passes the token to the successor, and again until a pass is answered. A pass whose answer
    // did not come (a timeout, a silo declared dead or paused) may have been taken: it goes again to
    // the same coordinator, however the view changes meanwhile, until that one answers. Only a
    // coordinator that says it is out of the ring did not take it: then the token goes along the
    // newest view. Sent to another coordinator while the first may hold it, or take it later (a
    // paused silo wakes with the pass still to deliver), there would be two holders handing out
    // the same tids. A coordinator that never answers is on a dead silo, whose failover halts this
    // coordinator and makes a new token: this one is dropped.
    private async Task Pass(BatchToken passing)
    {
        var pass = ++passing.Passes; // the same number each time it is tried again
        string? tried = null;
        while (true)
        {
            if (passing.View.Epoch < haltedBefore)
            {
                return;
            }

            var next = tried ?? view.Successor(key);
            if (next is null)
            {
                // No ring (every silo left): keep the token.
                token = passing;
                parked = true;
                return;
            }

            try
            {
                tried = next;
                await coordinators.Get(next).PassToken(passing, pass);
                return;
            }
            catch (CoordinatorLeftRingException)
            {
                LogMessages.TokenPassRefused(diagnostics, key, next);
                tried = null; // not taken: along the newest view, once it has the one without it
                await Task.Delay(WakeAfter, clock);
            }
            catch (Exception e)
            {
                // The next coordinator did not answer (its silo is going away, or paused), or it is
                // a silo's new incarnation refusing what its dead one may have taken: keep the
                // token, and try again.
                LogMessages.TokenPassFailed(diagnostics, e, key, next);
                await Task.Delay(WakeAfter, clock);
            }
        }
    }

    private void WakeHolder()
    {
        if (parkedAt.Holder is { } holder && holder != key)
        {
            parkedAt = (null, parkedAt.Parkings);
            _ = Send(holder, c => c.Wake());
        }
    }

    private Task WakeEveryone()
    {
        if (token is not null || !HasWork)
        {
            wakeTimer?.Dispose();
            wakeTimer = null;
            return Task.CompletedTask;
        }

        TellOthers(c => c.Wake());
        return Task.CompletedTask;
    }

    private async Task Send(string coordinator, Func<ICoordinator, Task> message)
    {
        try
        {
            await message(coordinators.Get(coordinator));
        }
        catch (Exception e)
        {
            LogMessages.CoordinatorMessageFailed(diagnostics, e, key, coordinator);
        }
    }

    // Once in the ring, a newer view without this coordinator means it is out for good (its silo
    // is stopping or was declared dead; a silo that comes back joins with new coordinators' lives,
    // and the view names the new incarnation).
    // What waits here for the token would wait for ever, and would hold the silo's stop up to its
    // shutdown timeout: each is refused, and its client asks another coordinator.
    private void NoteMembership()
    {
        var member = view.Has(key, silo, incarnation);
        if (membership == Membership.NotYetIn && member)
        {
            membership = Membership.Member;
        }
        else if (membership == Membership.Member && !member && view.Members.Length > 0)
        {
            Refuse(new CoordinatorLeftRingException(key, $"view {view.Epoch} has it no more"));
        }
    }

    /// <summary>
    /// This coordinator will not hold the token again (a newer view has it no more, or its silo is
    /// stopping): the PACTs and tid requests waiting here, and those sent later, are refused with
    /// <paramref name="refusal"/>.
    /// </summary>
    public void Refuse(CoordinatorLeftRingException refusal)
    {
        membership = Membership.Left;
        leftBecause ??= refusal;
        pipeline.Refuse(refusal);
        foreach (var request in tidRequests)
        {
            request.Allocated.TrySetException(refusal);
        }

        tidRequests = [];
    }

    private void NoteTids(BatchToken seen) => tidHighWater = Math.Max(tidHighWater, Math.Max(seen.LastTid, seen.ReservedThrough));
}
