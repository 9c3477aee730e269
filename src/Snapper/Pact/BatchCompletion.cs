using System.Collections.Immutable;
using Snapper.Coordination;
using Snapper.Logging;
using Snapper.Protocol;
using Snapper.Scheduling;

namespace Snapper.Pact;

/// <summary>
/// BatchComplete, actor → the batch's coordinator (Snapper §4.2.4), for one actor: sent once the
/// state the batch left here is durable, and only after the failures of the batch's PACTs here
/// have reached the coordinator, so a coordinator never decides a batch before it knows a PACT of
/// it failed.
/// </summary>
internal sealed class BatchCompletion(ActorId actor, PactServices services, LogWriter? logger, LocalSchedule schedule)
{
    // Failures of PACTs reported to their coordinators, by bid: BatchComplete is sent only once they arrived.
    private readonly Dictionary<long, Task> failureReports = new();

    // BatchComplete once the state this batch left is durable (write-ahead: before the coordinator
    // may commit), straight from the logger's flush loop without coming back into this grain.
    // Sooner still when the batch's coordinator is on this silo and writes the same log: then it
    // goes as soon as the record is queued, with its place in the log, and the coordinator's
    // BatchCommit, queued behind it, fails if it was not written.
    // The batch's after-commit actions registered here go along with BatchComplete.
    public void Report(SubBatch batch, ReadOnlyMemory<byte> state, bool delta, long version, ImmutableArray<AfterCommitAction> actions)
    {
        if (failureReports.Remove(batch.Bid, out var reported))
        {
            _ = ReportAfter(reported, batch, state, delta, version, actions);
            return;
        }

        if (logger is null || state.IsEmpty)
        {
            SendBatchComplete(services, batch, actor, actions);
            return;
        }

        var report = new CompletionReport(services, batch, actor, actions, early: ReferenceEquals(services.Loggers.ForCoordinator(batch.Coordinator), logger));
        report.Sequenced(logger.AppendSequenced(new BatchCompleteRecord(batch.Bid, actor, batch.Coordinator, state) { Version = version, Delta = delta }, report.WhenWritten));
    }

    // A batch's BatchComplete from here, once its record is in the log. Early (the coordinator is on
    // this silo and writes the same log), it is posted with the record's sequence number as soon as
    // that is known; otherwise, or if the coordinator's queue is closed (it is stopping), it goes
    // once the record is written. Sequenced and WhenWritten may come in either order: the flush
    // loop runs on another thread.
    private sealed class CompletionReport(PactServices services, SubBatch batch, ActorId actor, ImmutableArray<AfterCommitAction> actions, bool early)
    {
        private readonly Lock gate = new();
        private bool sendWhenWritten;
        private bool written;

        public void Sequenced(long sequence)
        {
            if (!early || !services.Inboxes.TryPost(batch.Coordinator, CoordinatorMail.BatchComplete(batch.Bid, actor, actions, sequence)))
            {
                Arrive(sequenced: true);
            }
        }

        public void WhenWritten(Exception? failure)
        {
            if (failure is not null)
            {
                _ = FailBatchHere(services, batch, actor, failure); // an early one's BatchCommit fails too, if it was decided
                return;
            }

            Arrive(sequenced: false);
        }

        // BatchComplete goes once it was not posted early and the record is written, from whichever came second.
        private void Arrive(bool sequenced)
        {
            lock (gate)
            {
                sendWhenWritten |= sequenced;
                written |= !sequenced;
                if (!sendWhenWritten || !written)
                {
                    return;
                }
            }

            SendBatchComplete(services, batch, actor, actions);
        }
    }

    // A PACT of the batch failed here: the coordinator hears of it before the batch's BatchComplete.
    private async Task ReportAfter(Task reported, SubBatch batch, ReadOnlyMemory<byte> state, bool delta, long version, ImmutableArray<AfterCommitAction> actions)
    {
        try
        {
            if (logger is not null && !state.IsEmpty)
            {
                await logger.Append(new BatchCompleteRecord(batch.Bid, actor, batch.Coordinator, state) { Version = version, Delta = delta });
            }

            await reported;
        }
        catch (Exception e)
        {
            await FailBatchHere(services, batch, actor, e);
            return;
        }

        SendBatchComplete(services, batch, actor, actions);
    }

    private static void SendBatchComplete(PactServices services, SubBatch batch, ActorId actor, ImmutableArray<AfterCommitAction> actions)
    {
        if (!services.Inboxes.TryPost(batch.Coordinator, CoordinatorMail.BatchComplete(batch.Bid, actor, actions)))
        {
            _ = SendBatchCompleteCall(services, batch, actor, actions); // its coordinator is on another silo
        }
    }

    private static async Task SendBatchCompleteCall(PactServices services, SubBatch batch, ActorId actor, ImmutableArray<AfterCommitAction> actions)
    {
        try
        {
            await services.Coordinator(batch.Coordinator).BatchComplete(batch.Bid, actor, actions);
        }
        catch (Exception e)
        {
            await FailBatchHere(services, batch, actor, e);
        }
    }

    private static Task FailBatchHere(PactServices services, SubBatch batch, ActorId actor, Exception e)
    {
        var failure = new TransactionAbortedException(AbortReason.Failure, $"actor {actor} could not log the state of batch {batch.Bid}: {e.Message}", e);
        return Insistently.Ask(() => services.Coordinator(batch.Coordinator).Fail(batch.Bid, 0, failure), services.Clock);
    }

    /// <summary>
    /// A PACT of batch <c>ctx.Bid</c> failed here: its coordinator is told now, and the batch's
    /// BatchComplete waits for that. Whatever the exception says, only the schedule knows whether
    /// this batch is being aborted: a body may throw (or let escape) an exception whose reason is
    /// Cascading while its own batch is fine, and that PACT must still abort. Reporting a batch a
    /// cascade already aborts is harmless.
    /// </summary>
    public void Fail(TxnContext ctx, Exception failure) => Fail(ctx.Bid, ctx.Tid, ctx.Coordinator!, failure);

    /// <summary><see cref="Fail(TxnContext, Exception)"/> for PACT <paramref name="tid"/> of batch <paramref name="bid"/> of <paramref name="coordinator"/>.</summary>
    public void Fail(long bid, long tid, string coordinator, Exception failure)
    {
        if (schedule.IsAborted(bid))
        {
            return; // this actor has already taken the batch's abort
        }

        // Asked again when its answer is late: a lost one would fail the whole batch (ReportAfter).
        var report = Insistently.Ask(() => services.Coordinator(coordinator).Fail(bid, tid, failure), services.Clock);
        failureReports[bid] = failureReports.TryGetValue(bid, out var earlier) ? Task.WhenAll(earlier, report) : report;
    }

    /// <summary>The batches <paramref name="resolved"/> names are decided: their failure reports are no longer needed.</summary>
    public void Forget(Func<long, bool> resolved)
    {
        if (failureReports.Count == 0)
        {
            return; // the usual case, on every BatchCommit
        }

        foreach (var bid in failureReports.Keys.Where(resolved).ToList())
        {
            failureReports.Remove(bid);
        }
    }
}
