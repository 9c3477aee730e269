using System.Runtime.ExceptionServices;
using Snapper.Actors;
using Snapper.Concurrency;
using Snapper.Logging;

namespace Snapper.Act;

/// <summary>
/// The ACT engine of one transactional actor (Snapper §4.3): strict 2PL through
/// <see cref="WaitDieLock"/>, execution info for the root, and the participant's side of 2PC with
/// presumed abort. <see cref="TransactionalActor{TState}"/> is a thin shell over it.
/// </summary>
/// <remarks>
/// Runs only inside the actor's turns, like a reentrant Orleans grain: turns interleave at awaits
/// but never run in parallel, so the fields need no locking.
/// </remarks>
internal sealed class ActParticipant<TState>
    where TState : class
{
    private readonly SnapperRuntime runtime;
    private readonly object owner;
    private readonly Logger? logger;
    private readonly WaitDieLock @lock = new();
    private readonly Dictionary<long, ActRecord<TState>> records = new();
    private TState committed;

    public ActParticipant(ActorId id, SnapperRuntime runtime, TState initial, object owner)
    {
        Id = id;
        this.runtime = runtime;
        this.owner = owner;
        logger = runtime.Loggers.For(id);
        committed = EnsureSerializable(id, runtime, initial);
        if (runtime.Recovered.TryGet(id, out var logged))
        {
            committed = Restore(id, runtime, logged);
        }
    }

    public ActorId Id { get; }

    /// <summary>The last committed state, shared with the PACT engine, which sets it at BatchCommit.</summary>
    public TState Committed
    {
        get => committed;
        set => committed = value;
    }

    /// <summary>Set by the actor: true while PACT batches are scheduled or uncommitted here.</summary>
    public Func<bool> PactBusy { get; set; } = static () => false;

    /// <summary>Transactions this actor currently takes part in.</summary>
    public int ActiveRecords => records.Count;

    internal WaitDieLock Lock => @lock;

    public ValueTask<TState> GetState(TxnContext ctx, AccessMode mode)
    {
        runtime.Active.EnsureRunning(ctx, nameof(GetState));
        if (mode is not (AccessMode.Read or AccessMode.ReadWrite))
        {
            throw new ArgumentOutOfRangeException(nameof(mode), mode, "AccessMode must be Read or ReadWrite.");
        }

        if (!records.TryGetValue(ctx.Tid, out var record))
        {
            throw new SnapperException(
                $"GetState on {Id} with the context of {ctx}, but {Id} is not running that transaction. " +
                "A transaction reaches an actor only as its first actor or through CallActor.");
        }

        var acquire = @lock.Acquire(ctx.Tid, mode == AccessMode.ReadWrite ? LockMode.Write : LockMode.Read, ctx.Deadline, runtime.Clock);
        return acquire.IsCompletedSuccessfully ? new ValueTask<TState>(StateFor(record, mode)) : AwaitLock(acquire, record, mode);
    }

    public async Task<TResult> CallActor<TActor, TResult>(TxnContext ctx, ActorId target, Func<TActor, Task<TResult>> call)
        where TActor : ITransactionalActor
    {
        runtime.Active.EnsureRunning(ctx, nameof(CallActor));
        ArgumentNullException.ThrowIfNull(call);
        if (!records.TryGetValue(ctx.Tid, out var record))
        {
            throw new SnapperException($"CallActor from {Id} with the context of {ctx}, but {Id} is not running that transaction.");
        }

        try
        {
            var activation = runtime.Directory.Get<TActor>(target);
            var callee = (IActParticipant)activation.Instance;
            var (result, info) = await activation.Run(() => callee.Invoke(ctx, call));
            record.Learned.Merge(info);
            return result;
        }
        catch (ParticipantCallException failed)
        {
            record.Learned.Merge(failed.Info);
            record.Learned.Fail(failed.Original);
            ExceptionDispatchInfo.Throw(failed.Original);
            throw; // unreachable
        }
        catch (Exception e)
        {
            record.Learned.Fail(e);
            throw;
        }
    }

    public async Task<(TResult Result, ExecutionInfo Info)> Invoke<TActor, TResult>(TxnContext ctx, Func<TActor, Task<TResult>> call)
    {
        runtime.Active.EnsureRunning(ctx, "a call");
        if (!records.TryGetValue(ctx.Tid, out var record))
        {
            if (PactBusy())
            {
                throw new SnapperException($"ACT {ctx.Tid} reached actor {Id} while PACT batches run on it; running both modes on one actor at once (hybrid execution) is not supported yet.");
            }

            record = new ActRecord<TState>(ctx);
            records.Add(ctx.Tid, record);
        }
        else if (record.State != ActRecordState.Active)
        {
            throw new SnapperException($"{Id} was called in {ctx} after it prepared to commit.");
        }

        try
        {
            var result = await call((TActor)owner);
            return (result, Report(record));
        }
        catch (Exception e)
        {
            throw new ParticipantCallException(Report(record), e is ParticipantCallException p ? p.Original : e);
        }
    }

    public async Task<TResult> RunAsRoot<TActor, TResult>(Func<TActor, TxnContext, Task<TResult>> body, CancellationToken cancellationToken)
    {
        cancellationToken.ThrowIfCancellationRequested();
        var started = runtime.Clock.GetTimestamp();
        var ctx = new TxnContext(runtime.Tids.NextActTid(), TxnMode.Act, Id, runtime.Clock.GetUtcNow() + runtime.Options.TransactionTimeout);
        runtime.Active.Begin(ctx);
        try
        {
            ExecutionInfo info;
            TResult result = default!;
            try
            {
                (result, info) = await Invoke<TActor, TResult>(ctx, actor => body(actor, ctx));
            }
            catch (ParticipantCallException failed)
            {
                info = failed.Info;
                info.Fail(failed.Original);
            }
            catch (SnapperException refused)
            {
                // Refused before it ran anywhere (e.g. PACTs hold this actor): nothing to roll back.
                info = new ExecutionInfo();
                info.Fail(refused);
            }

            runtime.Active.Completing(ctx.Tid);
            if (info.Failure is null && runtime.Clock.GetUtcNow() > ctx.Deadline)
            {
                info.Fail(new TransactionAbortedException(AbortReason.Timeout, $"ran past its deadline of {runtime.Options.TransactionTimeout}"));
            }

            if (info.Failure is { } failure)
            {
                await runtime.Commit.Abort(ctx.Tid, info);
                throw ActCommitCoordinator.AbortedBy(ctx.Tid, failure);
            }

            await runtime.Commit.Commit(ctx, info);
            runtime.Metrics.Committed(TxnMode.Act, runtime.Clock.GetElapsedTime(started));
            return result;
        }
        catch (TransactionAbortedException aborted)
        {
            runtime.Metrics.Aborted(TxnMode.Act, aborted.Reason, runtime.Clock.GetElapsedTime(started));
            throw;
        }
        finally
        {
            runtime.Active.End(ctx.Tid);
        }
    }

    public async Task<Vote> Prepare(long tid)
    {
        if (!records.TryGetValue(tid, out var record))
        {
            return Vote.No; // it aborted here already; presumed abort
        }

        if (@lock.HeldBy(tid) != LockMode.Write || record.Working is null)
        {
            Forget(tid);
            return Vote.ReadOnly;
        }

        record.State = ActRecordState.Prepared;
        if (logger is not null)
        {
            var state = runtime.Serializer.Serialize(record.Working);
            await logger.Append(new PrepareRecord(tid, Id, record.Context.Root, state));
        }

        return Vote.Yes;
    }

    public Task Commit(long tid)
    {
        if (records.Remove(tid, out var record))
        {
            committed = record.Working ?? committed;
            @lock.Release(tid);

            // Informational: recovery decides from the root's CoordCommit, so the vote-to-commit
            // path does not wait for this write. A failure is reported by the logger.
            _ = logger?.Append(new CommitRecord(tid, Id, ReadOnlyMemory<byte>.Empty));
        }

        return Task.CompletedTask;
    }

    public async Task CommitOnePhase(long tid)
    {
        if (!records.TryGetValue(tid, out var record))
        {
            throw new TransactionAbortedException(AbortReason.Failure, $"{Id} no longer knows the transaction") { Tid = tid };
        }

        if (logger is not null && record.Working is not null)
        {
            try
            {
                // Durable before the locks go: a later transaction must never see a lost write.
                await logger.Append(new CommitRecord(tid, Id, runtime.Serializer.Serialize(record.Working)));
            }
            catch
            {
                Forget(tid);
                throw;
            }
        }

        records.Remove(tid);
        committed = record.Working ?? committed;
        @lock.Release(tid);
    }

    public Task Abort(long tid)
    {
        Forget(tid);
        return Task.CompletedTask;
    }

    private void Forget(long tid)
    {
        records.Remove(tid);
        @lock.Release(tid);
    }

    private async ValueTask<TState> AwaitLock(ValueTask acquire, ActRecord<TState> record, AccessMode mode)
    {
        await acquire;
        return StateFor(record, mode);
    }

    private TState StateFor(ActRecord<TState> record, AccessMode mode) =>
        mode == AccessMode.ReadWrite
            ? record.Working ??= runtime.Serializer.Copy(committed)
            : record.Working ?? committed;

    private ExecutionInfo Report(ActRecord<TState> record)
    {
        var role = @lock.HeldBy(record.Context.Tid) switch
        {
            LockMode.Write => ParticipantRole.Writer,
            LockMode.Read => ParticipantRole.Reader,
            _ => ParticipantRole.Visitor,
        };
        return record.Learned.Snapshot(Id, role);
    }

    private static TState Restore(ActorId id, SnapperRuntime runtime, ReadOnlyMemory<byte> logged)
    {
        try
        {
            return runtime.Serializer.Deserialize<TState>(logged.Span);
        }
        catch (Exception e)
        {
            throw new SnapperException(
                $"Actor {id}'s last committed state in the log cannot be read as a {typeof(TState).FullName}: {e.Message}", e);
        }
    }

    private static TState EnsureSerializable(ActorId id, SnapperRuntime runtime, TState initial)
    {
        ArgumentNullException.ThrowIfNull(initial);
        try
        {
            return runtime.Serializer.Copy(initial);
        }
        catch (Exception e)
        {
            throw new SnapperException(
                $"The state type {typeof(TState).FullName} of actor {id} cannot be serialized by {runtime.Serializer.GetType().Name}: {e.Message}", e);
        }
    }
}
