using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Snapper.Diagnostics;

/// <summary>
/// Snapper's instruments, on the meter <c>Snapper</c>: transactions committed and aborted (tagged
/// by mode and abort reason), their duration, the loggers' group commits, PACT batch sizes, retries,
/// promotions, reconnaissance runs and checkpoint rounds.
/// </summary>
internal sealed class SnapperMetrics : IDisposable
{
    public const string MeterName = SnapperDiagnostics.MeterName;

    private readonly Meter meter;
    private readonly Counter<long> committed;
    private readonly Counter<long> aborted;
    private readonly Histogram<double> duration;
    private readonly Counter<long> logGroups;
    private readonly Histogram<int> logGroupSize;
    private readonly Histogram<int> batchSize;
    private readonly Histogram<double> batchPhase;
    private readonly Counter<long> retried;
    private readonly Counter<long> promoted;
    private readonly Counter<long> reconnaissance;
    private readonly Histogram<double> checkpointDuration;
    private readonly Counter<long> afterCommitAttempts;
    private readonly UpDownCounter<long> afterCommitOwed;
    private readonly Counter<long> lateAnswers;

    /// <summary>This silo's (or client's) meter: tests tell its measurements from other silos' in the process.</summary>
    internal Meter Meter => meter;

    /// <summary>Creates the instruments.</summary>
    public SnapperMetrics()
    {
        meter = new Meter(MeterName);
        committed = meter.CreateCounter<long>("snapper.transactions.committed", "{transaction}", "Transactions committed.");
        aborted = meter.CreateCounter<long>("snapper.transactions.aborted", "{transaction}", "Transactions aborted, by reason.");
        duration = meter.CreateHistogram<double>("snapper.transactions.duration", "ms", "Time from start to commit or abort.");
        logGroups = meter.CreateCounter<long>("snapper.log.groups", "{group}", "Group commits written to log storage.");
        logGroupSize = meter.CreateHistogram<int>("snapper.log.group_size", "{record}", "Records per group commit.");
        batchSize = meter.CreateHistogram<int>(BatchSizeInstrument, "{transaction}", "PACTs per batch formed by the coordinator ring.");
        batchPhase = meter.CreateHistogram<double>(SnapperDiagnostics.BatchPhaseInstrument, "ms", "How long PACT batches spent in each phase, by phase: formed (the longest a batch's PACTs waited for it to form), completed (from emission to the last BatchComplete), committed (from there to resolving committed).");
        retried = meter.CreateCounter<long>(RetriedInstrument, "{attempt}", "Attempts that aborted and were run again: an ACT's for a concurrency reason (ActOptions.MaxAttempts; a promoted ACT's runs after its first), a PACT's for a cascade (SnapperOptions.MaxPactAttempts), or, tagged reason=late_call, after it gave up a late call (SnapperOptions.RefuseLateCalls).");
        promoted = meter.CreateCounter<long>(PromotedInstrument, "{transaction}", "ACTs run as PACTs (ActOptions.Promote), by outcome and start: act after an ACT attempt lost its race, pact at once while most ACTs were losing theirs.");
        reconnaissance = meter.CreateCounter<long>(SnapperDiagnostics.ReconnaissanceInstrument, "{run}", "Reconnaissance runs of promoted ACTs whose bodies call their actors in rounds: no lock, batch or log, nothing written; the PACT declares what they called.");
        checkpointDuration = meter.CreateHistogram<double>(SnapperDiagnostics.CheckpointInstrument, "ms", "Checkpoint rounds, from the seals to the truncation, by outcome.");
        afterCommitAttempts = meter.CreateCounter<long>(SnapperDiagnostics.AfterCommitInstrument, "{attempt}", "Handler attempts on after-commit actions, by outcome (delivered, failed: tried again after a backoff).");
        afterCommitOwed = meter.CreateUpDownCounter<long>(SnapperDiagnostics.AfterCommitOwedInstrument, "{action}", "After-commit actions of committed transactions not yet taken by a handler on this silo.");
        lateAnswers = meter.CreateCounter<long>(SnapperDiagnostics.LateAnswerInstrument, "{call}", "Nested PACT calls whose answer was late, by outcome: answered (the caller went on with the answer its callee gave again), refused_ahead (the call had not reached its callee, which refused it ahead: the PACT aborted as LateCall and ran again).");
    }

    public const string BatchSizeInstrument = SnapperDiagnostics.BatchSizeInstrument;

    public const string RetriedInstrument = SnapperDiagnostics.RetriedInstrument;

    public const string PromotedInstrument = SnapperDiagnostics.PromotedInstrument;

    internal void Committed(TxnMode mode, TimeSpan elapsed)
    {
        var tag = new KeyValuePair<string, object?>("mode", ModeName(mode));
        committed.Add(1, tag);
        duration.Record(elapsed.TotalMilliseconds, tag);
    }

    // Tagged also by the type of the actor in the way (blocker.actor_type, "none" for an abort no
    // other transaction caused, "unknown" where only the batch is known): a type's tag, not an
    // actor's, so the number of series stays that of the application's actor types.
    internal void Aborted(TxnMode mode, TransactionAbortedException abort, TimeSpan elapsed)
    {
        var modeTag = new KeyValuePair<string, object?>("mode", ModeName(mode));
        var blockerType = abort.Blocker is not { } blocker ? "none" : blocker.Actor.IsDefault ? "unknown" : blocker.Actor.Type;
        aborted.Add(1, modeTag, new KeyValuePair<string, object?>("reason", abort.Reason.ToString()), new KeyValuePair<string, object?>("blocker.actor_type", blockerType));
        duration.Record(elapsed.TotalMilliseconds, modeTag);
    }

    // Neither committed nor aborted as far as the root knows: only its duration is recorded.
    internal void InDoubt(TxnMode mode, TimeSpan elapsed) =>
        duration.Record(elapsed.TotalMilliseconds, new KeyValuePair<string, object?>("mode", ModeName(mode)));

    internal void LogGroupWritten(int records)
    {
        logGroups.Add(1);
        logGroupSize.Record(records);
    }

    internal void BatchFormed(int pacts, TimeSpan longestWait)
    {
        batchSize.Record(pacts);
        batchPhase.Record(longestWait.TotalMilliseconds, new KeyValuePair<string, object?>("phase", SnapperDiagnostics.BatchPhaseFormed));
    }

    internal void BatchCompleted(TimeSpan sinceEmitted) =>
        batchPhase.Record(sinceEmitted.TotalMilliseconds, new KeyValuePair<string, object?>("phase", SnapperDiagnostics.BatchPhaseCompleted));

    internal void BatchCommitted(TimeSpan sinceCompleted) =>
        batchPhase.Record(sinceCompleted.TotalMilliseconds, new KeyValuePair<string, object?>("phase", SnapperDiagnostics.BatchPhaseCommitted));

    internal void AfterCommitOwed(int actions) => afterCommitOwed.Add(actions);

    internal void LateAnswerRecovered(bool refusedAhead) => lateAnswers.Add(1, new KeyValuePair<string, object?>("outcome", refusedAhead ? "refused_ahead" : "answered"));

    internal void AfterCommitAttempt(bool delivered, string messageType) =>
        afterCommitAttempts.Add(1, new KeyValuePair<string, object?>("outcome", delivered ? "delivered" : "failed"), new KeyValuePair<string, object?>("message_type", messageType));

    internal void CheckpointRound(TimeSpan elapsed, bool done) =>
        checkpointDuration.Record(elapsed.TotalMilliseconds, new KeyValuePair<string, object?>("outcome", done ? "done" : "failed"));

    internal void Retried(TxnMode mode) => retried.Add(1, new KeyValuePair<string, object?>("mode", ModeName(mode)));

    // A PACT run again because it, or the cascade it was in, gave up a late call (not a retry of MaxPactAttempts).
    internal void RanAgainAfterLateCall() => retried.Add(1, new KeyValuePair<string, object?>("mode", ModeName(TxnMode.Pact)), new KeyValuePair<string, object?>("reason", "late_call"));

    // Once per promoted transaction, when its promoted runs end: committed, or aborted or in doubt.
    internal void Promoted(bool committed, bool atOnce) =>
        promoted.Add(1, new KeyValuePair<string, object?>("outcome", committed ? "committed" : "aborted"), new KeyValuePair<string, object?>("start", atOnce ? "pact" : "act"));

    internal void Reconnoitred() => reconnaissance.Add(1);

    /// <inheritdoc />
    public void Dispose() => meter.Dispose();

    private static string ModeName(TxnMode mode) => mode == TxnMode.Act ? "act" : "pact";
}
