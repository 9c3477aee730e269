using System.Collections.Concurrent;
using System.Reflection;
using Microsoft.Extensions.Options;
using Snapper.Coordination;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Configuration;
using Snapper.Protocol;
using Snapper.Reconnaissance;

namespace Snapper.Hosting;

/// <summary>
/// Starts transactions from a silo (its host or its grains). The body runs here, against an
/// ordinary grain reference to the first actor, with a start context
/// (<see cref="TxnContext.Start"/>), so the first actor runs the transaction as its root and
/// answers only once the transaction has committed or aborted.
/// </summary>
internal sealed class SnapperClient(
    IOptions<SnapperOptions> options,
    ActorResolver resolver,
    TidSource tids,
    ICoordinatorDirectory coordinators,
    SnapperMetrics metrics,
    TimeProvider clock,
    CoordinatorInboxes? inboxes = null) : ISnapperClient // on a silo: its coordinators take NewPact in process
{
    private readonly SnapperOptions settings = options.Value;
    private readonly ConcurrentDictionary<MethodInfo, ActContention> contention = new();

    /// <summary>How the ACTs of call site <paramref name="body"/> fare on this client (tests prime it).</summary>
    internal ActContention ContentionOf(Delegate body) => contention.GetOrAdd(body.Method, _ => new ActContention());

    public Task<TResult> RunAct<TActor, TResult>(ActorId first, Func<TActor, TxnContext, Task<TResult>> body, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor =>
        RunAct(first, body, ActOptions.Default, cancellationToken);

    public async Task<TResult> RunAct<TActor, TResult>(ActorId first, Func<TActor, TxnContext, Task<TResult>> body, ActOptions options, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(body);
        ArgumentNullException.ThrowIfNull(options);
        cancellationToken.ThrowIfCancellationRequested();
        if (options.MaxAttempts < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.MaxAttempts, "ActOptions.MaxAttempts must be at least 1.");
        }

        var earlyLockRelease = options.EarlyLockRelease ?? settings.EarlyLockRelease;
        var promote = options.Promote ?? settings.Promote;
        var actor = resolver.Get<TActor>(first);
        var site = promote ? ContentionOf(body) : null; // promotion off: RunAct as it was, no bookkeeping
        if (site is not null && site.PromoteAtOnce())
        {
            var (committed, promoted) = await RunPromoted(first, actor, body, AccessSet.Of(first), actAbort: null, site, options.OnRetry, cancellationToken);
            if (committed)
            {
                return promoted;
            }
        }

        long priority = 0;
        for (var attempt = 1; ; attempt++)
        {
            // Each attempt is a new transaction (its own tid, deadline and log records); a retry
            // carries the first attempt's tid as its age for wait-die.
            var tid = await NextActTid(cancellationToken);
            var ctx = new TxnContext(tid, TxnMode.Act, first, clock.GetUtcNow() + settings.TransactionTimeout) { Start = true, EarlyLockRelease = earlyLockRelease, Priority = priority };
            try
            {
                var result = await TransactionBody.Run(body, actor, ctx);
                if (attempt == 1)
                {
                    site?.FirstAttemptEnded(lostRace: false);
                }

                return result;
            }
            catch (BodyFailedAfterCommitException) when (attempt == 1 && site is not null)
            {
                site.FirstAttemptEnded(lostRace: false); // it committed; the body threw after
                throw;
            }
            catch (Exception lost) when (TransactionBody.IsLostAnswer(lost))
            {
                throw TransactionBody.InDoubt(tid, lost);
            }
            catch (TransactionAbortedException aborted)
            {
                var lostRace = ActOptions.IsRetryable(aborted.Reason);
                if (attempt == 1)
                {
                    site?.FirstAttemptEnded(lostRace);
                }

                if (!lostRace || cancellationToken.IsCancellationRequested)
                {
                    throw;
                }

                if (promote && aborted.Reached is not null)
                {
                    options.OnRetry?.Invoke(aborted);
                    return (await RunPromoted(first, actor, body, AccessSet.Of(first).Covering(aborted.Reached), aborted, site!, options.OnRetry, cancellationToken)).Result;
                }

                if (attempt >= options.MaxAttempts)
                {
                    throw;
                }

                priority = priority != 0 ? priority : tid;
                options.OnRetry?.Invoke(aborted);
                metrics.Retried(TxnMode.Act);
                var pause = options.RetryBackoff * Math.Pow(2, Math.Min(attempt - 1, 10)) * (0.5 + Random.Shared.NextDouble());
                await Task.Delay(pause, clock, cancellationToken);
            }
        }
    }

    public Task RunAct<TActor>(ActorId first, Func<TActor, TxnContext, Task> body, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(body);
        return RunAct<TActor, bool>(first, async (actor, ctx) =>
        {
            await body(actor, ctx);
            return true;
        }, cancellationToken);
    }

    public async Task<TResult> RunPact<TActor, TResult>(ActorId first, Func<TActor, TxnContext, Task<TResult>> body, AccessSet declared, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(body);
        ArgumentNullException.ThrowIfNull(declared);
        cancellationToken.ThrowIfCancellationRequested();
        var actor = resolver.Get<TActor>(first);
        if (declared.CallsOn(first) == 0)
        {
            throw new TransactionAbortedException(AbortReason.DeclarationError, $"the PACT starts on actor {first}, which its declaration does not name ({declared})");
        }

        for (var i = 0; i < declared.Count; i++)
        {
            var declaredActor = declared[i].Actor;
            // Fail before the PACT joins a batch: an actor that cannot take part would stall it.
            if (!resolver.IsTransactional(declaredActor))
            {
                throw new SnapperException($"The PACT declares actor {declaredActor}, which is not a transactional actor.");
            }
        }

        var lateCallRuns = 0;
        for (var attempt = 1; ; attempt++)
        {
            // Each attempt joins a new batch: a cascade that aborted the last one is over for it.
            var ctx = await Place(first, declared, cancellationToken);
            try
            {
                try
                {
                    return await TransactionBody.Run(body, actor, ctx with { Start = true, GivesUpLateCalls = settings.RefuseLateCalls && lateCallRuns < MaxLateCallRuns });
                }
                catch (ActorMovingException) when (clock.GetUtcNow() < ctx.Deadline)
                {
                    return await RunPlaced(actor, body, ctx); // sent again, to the next activation
                }
            }
            catch (Exception lost) when (TransactionBody.IsLostAnswer(lost))
            {
                throw TransactionBody.InDoubt(ctx.Tid, lost);
            }
            catch (TransactionAbortedException aborted) when (aborted.Reason == AbortReason.Cascading && attempt < settings.MaxPactAttempts && !cancellationToken.IsCancellationRequested)
            {
                metrics.Retried(TxnMode.Pact);
            }
            catch (TransactionAbortedException aborted) when (aborted.Reason == AbortReason.LateCall && lateCallRuns < 2 * MaxLateCallRuns && !cancellationToken.IsCancellationRequested)
            {
                // It gave up its turn for a call that was late on its way, so that the batches
                // behind it did not wait, or read the write of a PACT that did: run again at once,
                // not counted. After MaxLateCallRuns runs it waits for its calls.
                lateCallRuns++;
                attempt--;
                metrics.RanAgainAfterLateCall();
            }
            catch (TransactionAbortedException aborted) when (aborted.Reason == AbortReason.LateCall)
            {
                throw Aborts.AsCascading(aborted); // read the writes of PACTs that gave up, again and again
            }
        }
    }

    // The first call of a PACT placed in a batch (ctx): sent again if the first actor's activation
    // went before the PACT started there.
    private async Task<TResult> RunPlaced<TActor, TResult>(TActor actor, Func<TActor, TxnContext, Task<TResult>> body, TxnContext ctx)
    {
        while (true)
        {
            try
            {
                return await TransactionBody.Run(body, actor, ctx with { Start = true });
            }
            catch (ActorMovingException) when (clock.GetUtcNow() < ctx.Deadline)
            {
            }
        }
    }

    /// <summary>
    /// ACT attempt <paramref name="actAbort"/> aborted for a concurrency reason: the transaction runs
    /// again as a PACT declaring the calls the attempt made (<see cref="ActOptions.Promote"/>). A PACT
    /// never aborts for concurrency; a run that calls beyond its declaration aborts at that call,
    /// which names what it needed, and runs again declaring that too. Each such run adds a call the
    /// body makes, so a body whose calls do not depend on data it races with commits within one run
    /// more than the calls the ACT attempt missed; <see cref="MaxPromotedRuns"/> bounds the rest. If
    /// the promoted runs give up, the caller is told the ACT's own reason. The first run also
    /// declares the actors its call names (<see cref="StartPlacement"/>), unless the call site's
    /// bodies read their tid before their call (<see cref="ActContention.PlacesUpFront"/>). A run
    /// refused for the first time is followed by a reconnaissance (<see cref="Reconnoitre"/>), which
    /// learns every round of the body's calls at once, so a body whose calls do not depend on data
    /// it races with commits on the run after it; where most first runs of the call site are refused,
    /// the reconnaissance comes before the first run (<see cref="ActContention.Reconnoitres"/>). With no
    /// ACT attempt before (<paramref name="actAbort"/> null: promoted at once, see
    /// <see cref="ActContention"/>), giving up returns not committed: the transaction then runs as
    /// an ACT.
    /// </summary>
    private async Task<(bool Committed, TResult Result)> RunPromoted<TActor, TResult>(ActorId first, TActor actor, Func<TActor, TxnContext, Task<TResult>> body, AccessSet declared, TransactionAbortedException? actAbort, ActContention site, Action<TransactionAbortedException>? onRetry, CancellationToken cancellationToken)
    {
        var reconnoitred = site.Reconnoitres();
        if (reconnoitred)
        {
            declared = await Reconnoitre(first, actor, body, declared, site, atOnce: actAbort is null);
        }

        // Whether the first run is refused tells the call site whether to reconnoitre first: known
        // only of a start with no ACT attempt and no reconnaissance before it.
        var measured = actAbort is null && !reconnoitred;
        var cascades = 1;
        for (var run = 1; ; run++)
        {
            // The first run is placed as its call is sent: it declares the actors that call names
            // too, so a body whose actors come in its input is not refused for those.
            var placement = run == 1 && !site.PlacesUpFront
                ? new StartPlacement(first, declared, resolver.IsTransactional, named => Place(first, named, cancellationToken))
                : null;
            TxnContext? ctx = null;
            try
            {
                TResult result;
                if (placement is null)
                {
                    ctx = await Place(first, declared, cancellationToken) with { Promoted = true };
                    result = await RunPlaced(actor, body, ctx);
                }
                else
                {
                    try
                    {
                        result = await RunPlacedOnSend(actor, body, placement);
                    }
                    catch (StartNotPlacedException) when (placement.Placed is null)
                    {
                        // The body read its tid before its call: nothing was sent, so it runs
                        // again placed up front, as every later one of its call site will.
                        site.ReadContextEarly();
                        placement = null;
                        ctx = await Place(first, declared, cancellationToken) with { Promoted = true };
                        result = await RunPlaced(actor, body, ctx);
                    }
                }

                if (run == 1 && measured)
                {
                    site.FirstPromotedRunEnded(refused: false);
                }

                metrics.Promoted(committed: true, atOnce: actAbort is null);
                return (true, result);
            }
            catch (BodyFailedAfterCommitException)
            {
                metrics.Promoted(committed: true, atOnce: actAbort is null); // the body threw after
                throw;
            }
            catch (Exception lost) when (TransactionBody.IsLostAnswer(lost))
            {
                metrics.Promoted(committed: false, atOnce: actAbort is null);
                throw (ctx ?? placement?.Placed) is { } sent
                    ? TransactionBody.InDoubt(sent.Tid, lost)
                    : new TransactionAbortedException(AbortReason.Failure, $"the run was placed in no batch, so nothing of it ran: {lost.Message}", lost); // not in doubt
            }
            catch (TransactionAbortedException missed) when (missed.Reason == AbortReason.DeclarationError && missed.Reached is { } more && run < MaxPromotedRuns && !cancellationToken.IsCancellationRequested)
            {
                declared = ((ctx ?? placement?.Placed)?.Declared ?? declared).Covering(more);
                metrics.Retried(TxnMode.Act); // an attempt of the ACT the caller started
                if (run == 1 && measured)
                {
                    site.FirstPromotedRunEnded(refused: true);
                }

                if (!reconnoitred && !site.PlacesUpFront)
                {
                    // The body called beyond what its call names: there may be more rounds, which
                    // one reconnaissance learns at once instead of a refused run each.
                    reconnoitred = true;
                    declared = await Reconnoitre(first, actor, body, declared, site, atOnce: actAbort is null);
                }
            }
            catch (TransactionAbortedException cascaded) when (cascaded.Reason is AbortReason.Cascading or AbortReason.LateCall && cascades++ < settings.MaxPactAttempts && !cancellationToken.IsCancellationRequested)
            {
                declared = (ctx ?? placement?.Placed)?.Declared ?? declared;
                onRetry?.Invoke(cascaded.Reason == AbortReason.LateCall ? Aborts.AsCascading(cascaded) : cascaded); // a reader of a write taken back
                metrics.Retried(TxnMode.Act);
            }
            catch (TransactionAbortedException aborted)
            {
                metrics.Promoted(committed: false, atOnce: actAbort is null); // Failure too: no coordinator could take it
                if (aborted.Reason is AbortReason.DeclarationError or AbortReason.Cascading or AbortReason.LateCall)
                {
                    // The promoted runs gave up: promoted at once, the transaction runs as an ACT;
                    // after an ACT attempt, the caller hears why that attempt lost its race.
                    return actAbort is null
                        ? (false, default!)
                        : throw new TransactionAbortedException(actAbort.Reason, $"{actAbort.Detail} (run again as a PACT, it gave up: {aborted.Detail})", aborted) { Tid = aborted.Tid, Blocker = actAbort.Blocker };
                }

                throw;
            }
        }
    }

    // OLLP's reconnaissance (Snapper.Reconnaissance): the body runs once with a start context that
    // takes no lock, batch or log record and writes nothing; the calls it made come back in the
    // root's execution info, which the call filter puts in the sink set here, as it does for a
    // CallActor. What the body returned or threw says nothing (it read states no transaction stands
    // behind): the PACT's outcome will. Returns declared covering what it called; unchanged if
    // nothing was sent: the body read its tid first, and a reconnaissance has none. A
    // reconnaissance stopped by its deadline or its bound, or whose answer came after its
    // deadline, aborts the transaction: a body that does not end would spin as a PACT too.
    private async Task<AccessSet> Reconnoitre<TActor, TResult>(ActorId first, TActor actor, Func<TActor, TxnContext, Task<TResult>> body, AccessSet declared, ActContention site, bool atOnce)
    {
        var learned = new ExecutionInfo();
        var start = new TxnContext(0, TxnMode.Pact, first, clock.GetUtcNow() + settings.TransactionTimeout) { Start = true, ReconnaissanceRun = Guid.NewGuid(), Placement = ReconnaissanceStart.Instance };
        metrics.Reconnoitred();
        ExecutionInfoSink.Value = learned;
        try
        {
            await body(actor, start);
        }
        catch (StartNotPlacedException) when (learned.Participants.Count == 0)
        {
            site.ReadContextEarly();
            return declared;
        }
        catch (Exception)
        {
            // The PACT will tell.
        }
        finally
        {
            ExecutionInfoSink.Value = null;
        }

        var stopped = learned.Failure as TransactionAbortedException
            ?? (clock.GetUtcNow() > start.Deadline ? Aborts.ReconnaissancePastDeadline(settings.TransactionTimeout) : null);
        if (stopped is not null)
        {
            metrics.Promoted(committed: false, atOnce);
            throw new TransactionAbortedException(stopped.Reason, stopped.Detail, stopped) { Blocker = stopped.Blocker };
        }

        return learned.Reached() is { } reached ? declared.Covering(reached) : declared;
    }

    // The first promoted run: the body gets a start context the call filter places as the call is
    // sent; sent again, placed, if the first actor's activation went before the call started there.
    private async Task<TResult> RunPlacedOnSend<TActor, TResult>(TActor actor, Func<TActor, TxnContext, Task<TResult>> body, StartPlacement placement)
    {
        var start = new TxnContext(0, TxnMode.Pact, placement.First, clock.GetUtcNow() + settings.TransactionTimeout) { Start = true, Promoted = true, Placement = placement };
        try
        {
            return await TransactionBody.Run(body, actor, start);
        }
        catch (ActorMovingException) when (placement.Placed is { } placed && clock.GetUtcNow() < placed.Deadline)
        {
            return await RunPlaced(actor, body, placed);
        }
    }

    /// <summary>
    /// Runs of a PACT that may give up a late call (<see cref="AbortReason.LateCall"/>); the run after
    /// them waits for its calls. A late call is rare and independent of the run, so few runs are
    /// enough for all but a share of PACTs too small to hold up many batches.
    /// </summary>
    internal const int MaxLateCallRuns = 4;

    /// <summary>Promoted runs at most, for a body whose calls depend on data that keeps changing.</summary>
    internal const int MaxPromotedRuns = 16;

    // An ACT attempt's tid. A range is fetched from a coordinator now and then; one that cannot be
    // reached (on a cluster client, the ring membership's silo may have left) took nothing, so the
    // fetch is tried again from a fresh view, and if that fails too the attempt, which has not
    // started, aborts.
    private async Task<long> NextActTid(CancellationToken cancellationToken)
    {
        const int Fetches = 3;
        for (var fetch = 1; ; fetch++)
        {
            try
            {
                return await tids.NextActTid();
            }
            catch (Exception e) when (e is not (TransactionAbortedException or SnapperException))
            {
                if (fetch >= Fetches || cancellationToken.IsCancellationRequested)
                {
                    throw new TransactionAbortedException(AbortReason.Failure, $"no coordinator could give the ACT a tid: {e.Message}", e);
                }
            }
        }
    }

    // NewPact at the coordinator for the first actor. One that cannot be reached (its silo may have
    // left the cluster) took nothing, so the PACT goes to another, from a fresh view of the ring.
    private async Task<TxnContext> Place(ActorId first, AccessSet declared, CancellationToken cancellationToken)
    {
        const int Placements = 3;
        for (var placement = 1; ; placement++)
        {
            try
            {
                // Inside the try: on a cluster client, finding the coordinator asks the ring
                // membership, whose silo may be the one that left.
                var (key, coordinator) = await coordinators.ForPact(first);
                if (inboxes is not null)
                {
                    var pending = new PendingPact(first, declared);
                    if (inboxes.TryPost(key, CoordinatorMail.NewPact(pending)))
                    {
                        return await pending.Placed.Task;
                    }
                }

                return await coordinator.NewPact(first, declared);
            }
            catch (Exception e) when (e is not (TransactionAbortedException or SnapperException))
            {
                coordinators.Refresh();
                if (placement >= Placements || cancellationToken.IsCancellationRequested)
                {
                    throw new TransactionAbortedException(AbortReason.Failure, $"no coordinator could take the PACT: {e.Message}", e);
                }
            }
        }
    }

    public Task RunPact<TActor>(ActorId first, Func<TActor, TxnContext, Task> body, AccessSet declared, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(body);
        return RunPact<TActor, bool>(first, async (actor, ctx) =>
        {
            await body(actor, ctx);
            return true;
        }, declared, cancellationToken);
    }
}
