using Snapper.Act;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.State;

namespace Snapper.Pact;

/// <summary>
/// The PACT engine of one transactional actor (Snapper §4.2.3–4.2.4): runs calls in the order of
/// its <see cref="LocalSchedule"/>, keeps one state version per uncommitted batch so batches can run
/// speculatively, logs the state a batch leaves before reporting BatchComplete, and applies
/// BatchCommit and abort cascades.
/// </summary>
/// <remarks>
/// State versions (<see cref="StateVersions{TState}"/>, shared with the ACT engine): committed ←
/// the states left by completed but uncommitted batches, oldest first ← the running batch's
/// working copy, made at its first write. A batch therefore never mutates a version a commit
/// still needs.
/// </remarks>
internal sealed class PactParticipant<TState>
    where TState : class
{
    private readonly SnapperRuntime runtime;
    private readonly StateVersions<TState> versions;
    private readonly Logger? logger;
    private readonly LocalSchedule schedule;
    private readonly Dictionary<long, (long Bid, TaskCompletionSource Outcome)> outcomes = new();
    private readonly HashSet<long> failedBatches = new();
    private TState? working;
    private long workingVersion; // the version the running batch's writes become: one more than what it copied

    public PactParticipant(ActorId id, SnapperRuntime runtime, StateVersions<TState> versions, LocalSchedule schedule)
    {
        Id = id;
        this.runtime = runtime;
        this.versions = versions;
        this.schedule = schedule;
        logger = runtime.Loggers.For(id);
        schedule.Started += _ => working = null;
        schedule.Completed += OnCompleted;
    }

    public ActorId Id { get; }

    internal LocalSchedule Schedule => schedule;

    /// <summary>True while any batch is scheduled here or not yet committed.</summary>
    public bool HasUncommittedBatches => schedule.HasBatches || versions.HasUncommitted;


    public TState GetState(TxnContext ctx, AccessMode mode)
    {
        if (schedule.Running is not { } batch || batch.Bid != ctx.Bid || schedule.CurrentPact(ctx.Bid) != ctx.Tid)
        {
            throw new SnapperException($"GetState on {Id} with the context of {ctx} outside that PACT's turn on {Id}; a PACT reaches an actor only through CallActor.");
        }

        if (working is not null || mode == AccessMode.Read)
        {
            return working ?? versions.Latest;
        }

        var (latest, version) = versions.LatestWithVersion;
        workingVersion = version + 1;
        return working = runtime.Serializer.Copy(latest);
    }

    /// <summary>A nested call within the PACT: an ordinary grain call, which the callee runs in its schedule.</summary>
    public async Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId target, Func<TActor, Task<TResult>> call)
        where TActor : ITransactionalActor
    {
        ArgumentNullException.ThrowIfNull(call);
        var callee = runtime.Resolver.Get<TActor>(target);
        var outer = ExecutionInfoSink.Value;
        ExecutionInfoSink.Value = ExecutionInfoSink.PactCall;
        try
        {
            return await call(callee);
        }
        finally
        {
            ExecutionInfoSink.Value = outer;
        }
    }

    /// <summary>
    /// The root of PACT <paramref name="ctx"/>: runs its first call (<paramref name="invoke"/>),
    /// then waits for its batch to commit or abort (Snapper §4.2.4). Throws
    /// <see cref="TransactionAbortedException"/> if the batch aborted.
    /// </summary>
    public async Task RunPactAsRoot(TxnContext ctx, Func<Task> invoke)
    {
        var started = runtime.Clock.GetTimestamp();
        var outcome = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        outcomes[ctx.Tid] = (ctx.Bid, outcome);
        using var span = SnapperTracing.StartTransaction(ctx);
        var execute = SnapperTracing.StartPhase(SnapperTracing.Execute);
        try
        {
            await InvokePact(ctx, invoke);
        }
        catch
        {
            // Reported to the ring by InvokePact; the outcome below says how the batch ended.
        }
        finally
        {
            execute?.Dispose();
        }

        if (schedule.IsAborted(ctx.Bid))
        {
            // The batch was aborted before this root got to run (its outcome was not registered
            // yet when the cascade came by).
            outcomes.Remove(ctx.Tid);
            outcome.TrySetException(Cascaded(ctx.Tid));
        }

        var batchCommit = SnapperTracing.StartPhase(SnapperTracing.BatchCommit);
        try
        {
            await outcome.Task;
            batchCommit?.Dispose();
            runtime.Metrics.Committed(TxnMode.Pact, runtime.Clock.GetElapsedTime(started));
            SnapperTracing.Committed(span);
        }
        catch (TransactionAbortedException aborted)
        {
            batchCommit?.Dispose();
            runtime.Metrics.Aborted(TxnMode.Pact, aborted.Reason, runtime.Clock.GetElapsedTime(started));
            SnapperTracing.Aborted(span, aborted);
            throw;
        }
    }

    /// <summary>A call of PACT <paramref name="ctx"/> arrives here: wait for its turn in the local schedule, run it (<paramref name="invoke"/>), count it out.</summary>
    public async Task InvokePact(TxnContext ctx, Func<Task> invoke)
    {
        if (ctx.Declared is not { } declared || declared.CallsOn(Id) == 0)
        {
            var undeclared = new TransactionAbortedException(AbortReason.DeclarationError, $"PACT {ctx.Tid} called actor {Id}, which its declaration does not name") { Tid = ctx.Tid };
            Fail(ctx, undeclared);
            throw undeclared;
        }

        try
        {
            await schedule.Enter(ctx);
        }
        catch (TransactionAbortedException e)
        {
            Fail(ctx, e);
            throw;
        }

        try
        {
            await invoke();
        }
        catch (Exception e)
        {
            // The actor that catches a PACT's exception detects the batch's abort (§4.2.4). It is
            // marked failed here before the call counts as done, so the batch can never report
            // BatchComplete for a PACT that threw.
            Fail(ctx, e);
            throw;
        }
        finally
        {
            schedule.Exit(ctx);
        }
    }

    public void OnBatch(SubBatch batch) => schedule.Add(batch);

    public void OnBatchCommit(long bid)
    {
        // Batches commit in bid order, so everything up to bid is committed now.
        versions.CommitBatchesThrough(bid);
        foreach (var (tid, (batchId, outcome)) in outcomes.ToList())
        {
            if (batchId <= bid)
            {
                outcomes.Remove(tid);
                outcome.TrySetResult();
            }
        }

        failedBatches.RemoveWhere(b => b <= bid);
    }

    /// <summary>
    /// A coordinator aborted batch <paramref name="bid"/> in a cascade that ends at
    /// <paramref name="through"/>: the batches from <paramref name="bid"/> through
    /// <paramref name="through"/> are rolled back here (earlier ones stay: they may still commit),
    /// and the PACTs of them rooted here learn why (<paramref name="failures"/> for those that
    /// failed, <see cref="AbortReason.Cascading"/> for the rest).
    /// </summary>
    public void OnAbort(long bid, long through, IReadOnlyDictionary<long, Exception> failures)
    {
        versions.DropBatches(bid, through);
        if (schedule.AbortRange(bid, through, versions.LastBatch.Bid))
        {
            working = null;
        }

        failedBatches.RemoveWhere(b => b >= bid && b <= through);
        foreach (var (tid, (batchId, outcome)) in outcomes.ToList())
        {
            if (batchId < bid || batchId > through)
            {
                continue;
            }

            outcomes.Remove(tid);
            outcome.TrySetException(failures.TryGetValue(tid, out var cause) ? ActCommitCoordinator.AbortedBy(tid, cause) : Cascaded(tid));
        }
    }

    public (long Tid, string Description) DescribeWait(long bid) => (schedule.CurrentPact(bid), schedule.DescribeWait(bid));

    private void OnCompleted(SubBatch batch)
    {
        if (failedBatches.Contains(batch.Bid))
        {
            return; // the ring is aborting it; no BatchComplete
        }

        var written = working;
        working = null;
        versions.BatchCompleted(batch.Bid, batch.Coordinator, written, workingVersion);
        var state = written is null ? ReadOnlyMemory<byte>.Empty : runtime.Serializer.Serialize(written);
        _ = ReportCompleted(batch, state, workingVersion);
    }

    private async Task ReportCompleted(SubBatch batch, ReadOnlyMemory<byte> state, long version)
    {
        try
        {
            if (logger is not null && !state.IsEmpty)
            {
                // Write-ahead: the state this batch left is durable before the coordinator may commit.
                await logger.Append(new BatchCompleteRecord(batch.Bid, Id, batch.Coordinator, state) { Version = version });
            }

            await runtime.Coordinator(batch.Coordinator).BatchComplete(batch.Bid, Id);
        }
        catch (Exception e)
        {
            await runtime.Coordinator(batch.Coordinator).Fail(batch.Bid, 0, new TransactionAbortedException(AbortReason.Failure, $"actor {Id} could not log the state of batch {batch.Bid}: {e.Message}", e));
        }
    }

    // Whatever the exception says, only the schedule knows whether this batch is being aborted: a
    // body may throw (or let escape) an exception whose reason is Cascading while its own batch is
    // fine, and that PACT must still abort. Reporting a batch a cascade already aborts is harmless.
    private void Fail(TxnContext ctx, Exception failure)
    {
        if (schedule.IsAborted(ctx.Bid))
        {
            return; // this actor has already taken the batch's abort
        }

        failedBatches.Add(ctx.Bid);
        _ = runtime.Coordinator(ctx.Coordinator!).Fail(ctx.Bid, ctx.Tid, failure);
    }

    private static TransactionAbortedException Cascaded(long tid) =>
        new(AbortReason.Cascading, "aborted with the batches after another PACT that aborted") { Tid = tid };
}
