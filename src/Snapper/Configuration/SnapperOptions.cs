namespace Snapper.Configuration;

/// <summary>Silo-wide Snapper settings. Set them in <c>AddSnapper(configure: o => ...)</c>.</summary>
public sealed class SnapperOptions
{
    /// <summary>
    /// Default for <see cref="LoggerCount"/> with <see cref="LoggingMode.RegisteredStorage"/> and for log
    /// storages of their own (Azure Tables): one logger per core, so writes proceed in parallel.
    /// </summary>
    public static readonly int DefaultLoggerCount = Environment.ProcessorCount;

    /// <summary>Default for <see cref="MaxBatchesInFlight"/>.</summary>
    public const int DefaultMaxBatchesInFlight = 4;

    /// <summary>Default for <see cref="ActTidRangeSize"/>.</summary>
    public const int DefaultActTidRangeSize = 1024;

    /// <summary>Default for <see cref="TransactionTimeout"/>.</summary>
    public static readonly TimeSpan DefaultTransactionTimeout = TimeSpan.FromSeconds(30);

    /// <summary>Default for <see cref="DeclarationTimeout"/>.</summary>
    public static readonly TimeSpan DefaultDeclarationTimeout = TimeSpan.FromSeconds(10);

    /// <summary>Default for <see cref="DeadlockTimeout"/>.</summary>
    public static readonly TimeSpan DefaultDeadlockTimeout = TimeSpan.FromMilliseconds(20);

    /// <summary>Where records go. Default <see cref="LoggingMode.RegisteredStorage"/>.</summary>
    public LoggingMode Logging { get; set; } = LoggingMode.RegisteredStorage;

    /// <summary>
    /// Loggers per silo; actors are spread over them by a hash of their id (1 to 1024). Null (the
    /// default) picks one: a single logger for <see cref="LoggingMode.File"/>, because the logs share
    /// one disk, which takes one fsync at a time, and one logger makes the largest group commits
    /// (the Azure Table storage's <c>AddSnapperAzureTableLogStorage</c> picks one logger too);
    /// <see cref="DefaultLoggerCount"/> otherwise.
    /// </summary>
    public int? LoggerCount { get; set; }

    /// <summary>The logger count in effect: <see cref="LoggerCount"/>, or the default for <see cref="Logging"/>.</summary>
    internal int EffectiveLoggerCount => LoggerCount ?? (Logging == LoggingMode.File ? 1 : DefaultLoggerCount);

    /// <summary>
    /// How many ACT tids a silo takes from the coordinator at a time (Snapper §4.3.1), so that ACTs
    /// get a tid without a round trip (1 to 1,000,000).
    /// </summary>
    public int ActTidRangeSize { get; set; } = DefaultActTidRangeSize;

    /// <summary>
    /// How long a transaction may run before it is aborted with <c>AbortReason.Timeout</c>; bounds
    /// every lock wait so nothing hangs forever (100 ms to 1 hour).
    /// </summary>
    public TimeSpan TransactionTimeout { get; set; } = DefaultTransactionTimeout;

    /// <summary>
    /// How long one attempt of an after-commit handler may run before the action is tried again
    /// beside it (<c>IAfterCommitHandler</c>) (100 ms to 1 hour); default 30 s.
    /// </summary>
    public TimeSpan AfterCommitAttemptTimeout { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>
    /// The longest wait between two attempts of a failing after-commit handler (100 ms to 1 hour):
    /// the backoff doubles from 100 ms up to this; default 30 s.
    /// </summary>
    public TimeSpan AfterCommitMaxBackoff { get; set; } = TimeSpan.FromSeconds(30);

    /// <summary>Where <see cref="LoggingMode.File"/> keeps its segment files (required for that mode).</summary>
    public string? LogDirectory { get; set; }

    /// <summary>
    /// How many of its batches a coordinator lets be unresolved at once (1 to 1024); while that
    /// many are, the PACTs that arrive wait and form one larger batch once one resolves, so slow
    /// batches grow instead of multiplying. Default <see cref="DefaultMaxBatchesInFlight"/>.
    /// </summary>
    public int MaxBatchesInFlight { get; set; } = DefaultMaxBatchesInFlight;

    /// <summary>Coordinators on the PACT token ring (1 to 64); default one per core.</summary>
    public int CoordinatorCount { get; set; } = Environment.ProcessorCount;

    /// <summary>
    /// How long a PACT batch may wait for a declared call before it is aborted with
    /// <c>AbortReason.DeclarationError</c> (a declared actor that is never called would otherwise
    /// stall every later batch on it) (10 ms to 1 hour).
    /// </summary>
    public TimeSpan DeclarationTimeout { get; set; } = DefaultDeclarationTimeout;

    /// <summary>
    /// Hybrid execution (Snapper §4.4.2): how long an ACT may wait for a PACT batch — to complete
    /// before the ACT is admitted on an actor, or to commit before the ACT may — before it is taken
    /// for a PACT/ACT deadlock and the ACT is aborted (<c>AbortReason.Deadlock</c>, or
    /// <c>SerializabilityUncertain</c> when its AfterSet is incomplete). PACTs have priority and
    /// never time out this way (1 ms to 1 hour). This is the floor: while the silo's batches take
    /// longer, the wait is four typical batch latencies (the median of the latest batches), so a batch
    /// that is merely slow is not taken for a deadlock; never beyond a quarter of the shorter of
    /// <see cref="DeclarationTimeout"/> and <see cref="TransactionTimeout"/>, so an ACT gives up on a
    /// cycle well before the coordinator gives up on the batch it holds up.
    /// </summary>
    public TimeSpan DeadlockTimeout { get; set; } = DefaultDeadlockTimeout;

    /// <summary>
    /// Default for ACTs that do not choose (<c>ActOptions.EarlyLockRelease</c>): release locks in
    /// phase one of two-phase commit and track commit dependencies (the Thorp protocol), so a
    /// write-hot actor is not locked across slow log writes. Default false (strict 2PL).
    /// </summary>
    public bool EarlyLockRelease { get; set; }

    /// <summary>
    /// Default for ACTs that do not choose (<c>ActOptions.Promote</c>): an ACT attempt that aborts
    /// for a concurrency reason runs again as a PACT over the actors it called, and while most ACTs
    /// lose their first race a new one starts as a PACT at once. Default true; false keeps every
    /// attempt an ACT.
    /// </summary>
    public bool Promote { get; set; } = true;

    /// <summary>
    /// Early lock release: how many prepared, undecided writes an actor exposes at once, i.e. the
    /// longest chain of commit dependencies through one actor. A writer past it keeps its lock
    /// until the decision, so a cascading abort undoes at most this many writes there (1 to 1024).
    /// </summary>
    public int MaxCommitDependencyChain { get; set; } = 16;

    /// <summary>
    /// How many times <c>RunPact</c> runs a PACT that aborted only because an earlier batch aborted
    /// (<see cref="AbortReason.Cascading"/>): 1 (the default) runs it once. A PACT that throws itself
    /// (User, DeclarationError) or fails (Failure, Timeout) is never run again. 1-1000.
    /// </summary>
    public int MaxPactAttempts { get; set; } = 1;

    /// <summary>
    /// A PACT's nested call still on its way to its callee past 50 ms (and past 4x the usual answer
    /// time) is refused ahead there, and the PACT aborts alone (<see cref="AbortReason.LateCall"/>)
    /// and runs again, instead of its batch and every batch behind it waiting for the call. Where an
    /// ACT has read the PACT's writes its whole batch aborts, with the batches after it, and their
    /// PACTs run again too. Off by default: on actors every PACT shares, each refusal takes the
    /// PACTs that read the write with it, and under many late calls some run past their reruns and
    /// are told <see cref="AbortReason.Cascading"/>. Worth turning on where the network is slow and
    /// PACTs rarely share actors.
    /// </summary>
    public bool RefuseLateCalls { get; set; }

    /// <summary>
    /// Added to every log storage write, to stand in for cloud storage latency in benchmarks
    /// (LoadGen <c>--log-delay-ms</c>). Zero (the default) adds nothing (0 to 10 s).
    /// </summary>
    public TimeSpan LogWriteDelay { get; set; }

    /// <summary>
    /// How often the cluster checkpoints the logs: every actor's committed state and the decisions
    /// still needed are written again and the records before them truncated, so logs and restart
    /// time stay bounded (docs/architecture.md, "Checkpoints"). Zero turns them off; otherwise 1 s
    /// to 1 day. Default: one minute.
    /// </summary>
    public TimeSpan CheckpointInterval { get; set; } = DefaultCheckpointInterval;

    /// <summary>Default for <see cref="CheckpointInterval"/>.</summary>
    public static readonly TimeSpan DefaultCheckpointInterval = TimeSpan.FromMinutes(1);
}
