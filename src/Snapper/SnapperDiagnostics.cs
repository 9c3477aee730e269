namespace Snapper;

/// <summary>
/// The names under which Snapper reports, for OpenTelemetry and other listeners: one meter and one
/// activity source, both named <c>Snapper</c>.
/// </summary>
/// <example>
/// <code>
/// services.AddOpenTelemetry()
///     .WithTracing(t => t.AddSource(SnapperDiagnostics.ActivitySourceName).AddOtlpExporter())
///     .WithMetrics(m => m.AddMeter(SnapperDiagnostics.MeterName).AddOtlpExporter());
/// </code>
/// </example>
public static class SnapperDiagnostics
{
    /// <summary>The meter of Snapper's counters and histograms (<c>snapper.transactions.committed</c>, ...).</summary>
    public const string MeterName = "Snapper";

    /// <summary>
    /// The activity source of Snapper's spans: one per transaction at its root actor
    /// (<c>snapper.act</c>, <c>snapper.pact</c>) with children for its phases.
    /// </summary>
    public const string ActivitySourceName = "Snapper";

    /// <summary>The histogram of PACTs per batch formed by the coordinator ring.</summary>
    public const string BatchSizeInstrument = "snapper.pact.batch_size";

    /// <summary>
    /// The histogram of the time, in milliseconds, PACT batches spend in each phase, tagged
    /// <c>phase</c>: <see cref="BatchPhaseFormed"/>, <see cref="BatchPhaseCompleted"/>,
    /// <see cref="BatchPhaseCommitted"/>. Where a PACT's latency goes: waiting to be batched, its
    /// batch running on its actors, or its batch waiting for the batches before it and the log.
    /// </summary>
    public const string BatchPhaseInstrument = "snapper.pact.batch_phase";

    /// <summary>The <c>phase</c> tag of <see cref="BatchPhaseInstrument"/>: the longest a batch's PACTs waited at their coordinator for the batch to form (the token, the batches in flight).</summary>
    public const string BatchPhaseFormed = "formed";

    /// <summary>The <c>phase</c> tag of <see cref="BatchPhaseInstrument"/>: from a batch's emission to its last participant's BatchComplete.</summary>
    public const string BatchPhaseCompleted = "completed";

    /// <summary>The <c>phase</c> tag of <see cref="BatchPhaseInstrument"/>: from a batch's last BatchComplete to its resolving committed (the batches before it, the log).</summary>
    public const string BatchPhaseCommitted = "committed";

    /// <summary>The counter of ACT attempts that aborted for a concurrency reason and were run again.</summary>
    public const string RetriedInstrument = "snapper.transactions.retried";

    /// <summary>
    /// The counter of ACTs run again as PACTs after an attempt aborted for a concurrency reason
    /// (<c>ActOptions.Promote</c>), tagged <c>outcome</c> <c>committed</c> or <c>aborted</c> (aborted
    /// or in doubt): one per transaction, when its promoted runs end.
    /// </summary>
    public const string PromotedInstrument = "snapper.transactions.promoted";

    /// <summary>
    /// The counter of reconnaissance runs: a promoted ACT whose body calls its actors in rounds runs
    /// once without locks, batch or log, writing nothing, to learn what its PACT declares.
    /// </summary>
    public const string ReconnaissanceInstrument = "snapper.transactions.reconnaissance";

    /// <summary>
    /// The histogram of checkpoint rounds, in milliseconds from the seals to the truncation, tagged
    /// <c>outcome</c> <c>done</c> or <c>failed</c>: recorded by the silo that runs the cluster's rounds.
    /// </summary>
    public const string CheckpointInstrument = "snapper.checkpoint.duration";

    /// <summary>After-commit actions a handler took (<c>TransactionalActor.AfterCommit</c>), by outcome: <c>delivered</c>, or <c>failed</c> for an attempt that threw or timed out and is tried again.</summary>
    public const string AfterCommitInstrument = "snapper.after_commit.attempts";

    /// <summary>After-commit actions owed on this silo: committed, not yet taken by a handler.</summary>
    public const string AfterCommitOwedInstrument = "snapper.after_commit.owed";

    /// <summary>
    /// Nested calls of PACTs whose answer was late (lost or held up on the way) and that went on
    /// with the answer their callee gave again, instead of waiting for the response timeout.
    /// </summary>
    public const string LateAnswerInstrument = "snapper.pact.late_answers";
}
