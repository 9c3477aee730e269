namespace Snapper.LoadGen.Options;

/// <summary>
/// One load generator invocation, as parsed from the command line. Serialized verbatim as the
/// <c>config</c> of the JSON report so a result file says how to reproduce it.
/// </summary>
public sealed record LoadGenOptions
{
    /// <summary>The workload (first positional argument): <c>smallbank</c>, <c>listappend</c> or <c>tpcc</c>.</summary>
    public string Workload { get; init; } = "smallbank";

    /// <summary>Modes to run, in order, on the same embedded silo (<c>--modes</c>).</summary>
    public IReadOnlyList<string> Modes { get; init; } = ModeNames.Default;

    /// <summary>Hybrid mode: the percentage of transactions issued as PACTs, the rest as ACTs (<c>--pact-percent</c>).</summary>
    public int PactPercent { get; init; } = 90;

    /// <summary>How actors are chosen (<c>--dist</c>).</summary>
    public Distribution Dist { get; init; } = Distribution.Uniform;

    /// <summary>The Zipf exponent (<c>--zipf</c>); used only with <see cref="Distribution.Zipf"/>.</summary>
    public double Zipf { get; init; } = 1.0;

    /// <summary>Actors per transaction: one debited actor plus <c>TxnSize - 1</c> distinct recipients (<c>--txn-size</c>).</summary>
    public int TxnSize { get; init; } = 4;

    /// <summary>Number of accounts (<c>--actors</c>).</summary>
    public int Actors { get; init; } = 10_000;

    /// <summary>Transactions each client keeps in flight (<c>--pipeline</c>).</summary>
    public int Pipeline { get; init; } = 64;

    /// <summary>Logical clients (<c>--clients</c>); each runs <see cref="Pipeline"/> loops with its own seeds.</summary>
    public int Clients { get; init; } = 2;

    /// <summary>Seconds of load before measuring, excluded from every statistic (<c>--warmup</c>).</summary>
    public double WarmupSeconds { get; init; } = 5;

    /// <summary>
    /// Most seconds the warm-up is extended, a second at a time, while the JIT is still compiling
    /// (<c>--jit-settle</c>; 0: the warm-up is exactly <see cref="WarmupSeconds"/>, as it always is
    /// when that is 0). See <see cref="Measurement.JitSettling"/>.
    /// </summary>
    public int JitSettleSeconds { get; init; }

    /// <summary>Seconds measured per mode (<c>--duration</c>).</summary>
    public double DurationSeconds { get; init; } = 10;

    /// <summary>Where the silo logs (<c>--logger</c>).</summary>
    public LoggerKind Logger { get; init; } = LoggerKind.Memory;

    /// <summary>Log directory of the file logger (<c>--log-dir</c>); null: a temporary folder deleted after the run.</summary>
    public string? LogDir { get; init; }

    /// <summary>The Azure storage connection string of <c>--logger azure-table</c> (<c>--connection</c>).</summary>
    public string Connection { get; init; } = LoadGenCommandLine.DevelopmentStorage;

    /// <summary>Milliseconds added to every log write (<c>--log-delay-ms</c>), standing in for cloud storage latency.</summary>
    public int LogDelayMs { get; init; }

    /// <summary>
    /// Milliseconds of the peer's lock timeouts (<c>--orleans-lock-timeout</c>: Orleans'
    /// <c>TransactionalStateOptions.LockTimeout</c> and <c>LockAcquireTimeout</c>), or null for Orleans' defaults.
    /// </summary>
    public int? OrleansLockTimeoutMs { get; init; }

    /// <summary>Seconds between checkpoints of the embedded silos' logs (<c>--checkpoint-interval</c>; 0: none).</summary>
    public int CheckpointIntervalSeconds { get; init; } = (int)Snapper.Configuration.SnapperOptions.DefaultCheckpointInterval.TotalSeconds;

    /// <summary>Silos of the embedded cluster, all in this process (<c>--silos</c>).</summary>
    public int Silos { get; init; } = 1;

    /// <summary>Gateways of running SiloHosts to drive as a client instead of embedded silos (<c>--cluster</c>), or null.</summary>
    public IReadOnlyList<string>? Cluster { get; init; }

    /// <summary>The default of <see cref="ResponseTimeoutSeconds"/>: Orleans' own is 30 s; a Snapper transaction may take its 30 s timeout and more.</summary>
    public const int DefaultResponseTimeoutSeconds = 60;

    /// <summary>With <see cref="Cluster"/>: seconds the Orleans client waits for an answer (<c>--response-timeout</c>).</summary>
    public int ResponseTimeoutSeconds { get; init; } = DefaultResponseTimeoutSeconds;

    /// <summary>Where to write the JSON report (<c>--json</c>), or null for none.</summary>
    public string? Json { get; init; }

    /// <summary>Where listappend writes its history, one JSON line per finished transaction (<c>--history</c>), or null.</summary>
    public string? History { get; init; }

    /// <summary>Where listappend writes every actor's list after the run (<c>--dump</c>), or null.</summary>
    public string? Dump { get; init; }

    /// <summary>TPC-C: warehouses of each mode's database (<c>--warehouses</c>).</summary>
    public int Warehouses { get; init; } = 2;

    /// <summary>TPC-C: issue only NewOrders instead of the standard mix (<c>--neworder-only</c>).</summary>
    public bool NewOrderOnly { get; init; }

    /// <summary>
    /// Check after each mode that the money on the touched accounts is unchanged (smallbank), the
    /// history against the lists (listappend), or TPC-C's consistency conditions 1–4 (<c>--verify</c>).
    /// </summary>
    public bool Verify { get; init; }

    /// <summary>
    /// Whether an ACT attempt that aborts for a concurrency reason runs again as a PACT
    /// (<c>--promote</c>, <c>ActOptions.Promote</c>): set on each ACT and on the embedded silos.
    /// </summary>
    public bool Promote { get; init; } = true;

    /// <summary>A failure to start or connect prints the whole exception (<c>--verbose</c>).</summary>
    public bool Verbose { get; init; }

    /// <summary>smallbank: how many times RunAct runs an ACT that aborts for a concurrency reason (<c>--act-attempts</c>), keeping its age.</summary>
    public int ActAttempts { get; init; } = 1;

    /// <summary>
    /// <c>--act-attempts</c>' default: SmallBank's ACTs retry as a client would. Wait-die restarts the
    /// transaction that dies with its first timestamp (which is how it avoids starvation), so a run
    /// that never retries measures the dying, not the protocol: at zipf 1.25, 2% of single attempts
    /// commit, and with 10 attempts each, more than a quarter of all attempts do.
    /// </summary>
    public const int SmallBankActAttempts = 10;

    /// <summary>listappend: the percentage of transactions that roll back after appending everywhere (<c>--user-aborts</c>).</summary>
    public int UserAborts { get; init; }

    /// <summary>smallbank, listappend: each transaction registers after-commit actions (<c>--after-commit</c>): a notice per transfer, an <c>Appended</c> per list.</summary>
    public bool AfterCommit { get; init; }

    /// <summary>smallbank: every mode runs twice, without and then with after-commit actions (<c>--after-commit both</c>).</summary>
    public bool AfterCommitCompared { get; init; }

    /// <summary>smallbank and tpcc: how many times RunPact runs a PACT aborted by a cascade (<c>--pact-attempts</c>).</summary>
    public int PactAttempts { get; init; } = 1;

    /// <summary>
    /// Faults during each mode's measured window (<c>--nemesis</c>), names of
    /// <see cref="Snapper.LoadGen.Nemesis.NemesisFaults"/>; empty: none.
    /// </summary>
    public IReadOnlyList<string> Nemesis { get; init; } = [];

    /// <summary>Deactivation and migration requests a second of the nemesis (<c>--nemesis-rate</c>).</summary>
    public double NemesisRate { get; init; } = Snapper.LoadGen.Nemesis.NemesisFaults.DefaultRate;

    /// <summary>Seed of every actor choice (<c>--seed</c>): same seed, same actor sequences per loop.</summary>
    public int Seed { get; init; } = 42;
}
