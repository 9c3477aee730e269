using Snapper.LoadGen.Nemesis;
using Snapper.LoadGen.Workloads;
using Snapper.LoadGen.Workloads.TpcC;

namespace Snapper.LoadGen.Measurement;

/// <summary>The measurements of one mode: one row of the table, one entry of the JSON <c>runs</c>.</summary>
public sealed record RunResult
{
    /// <summary>The mode, e.g. <c>act</c>.</summary>
    public required string Mode { get; init; }

    /// <summary>Committed transactions per measured second.</summary>
    public required double Throughput { get; init; }

    /// <summary>Transactions committed inside the measurement window.</summary>
    public required long Committed { get; init; }

    /// <summary>Transactions aborted inside the measurement window.</summary>
    public required long Aborted { get; init; }

    /// <summary>Aborted / (committed + aborted) × 100, 0 when nothing finished.</summary>
    public required double AbortPercent { get; init; }

    /// <summary>Aborts by reason name (<see cref="AbortReason"/> names, plus "Error"); only reasons that occurred.</summary>
    public required IReadOnlyDictionary<string, long> AbortReasons { get; init; }

    /// <summary>
    /// The actors most often in the way of this mode's aborted attempts (named by each abort's
    /// <see cref="AbortBlocker"/>; retried attempts included, over the whole run), most first, with
    /// their share of its aborted attempts; empty when none named one (<see cref="AbortBlockers"/>).
    /// </summary>
    public IReadOnlyList<InTheWay> InTheWay { get; init; } = [];

    /// <summary>Aborted attempts for a concurrency reason (wait-die, deadlock, the hybrid check, a cascade, a timeout) that named no blocker (0 expected).</summary>
    public long ConcurrencyAbortsWithoutBlocker { get; init; }

    /// <summary>Committed-only latency percentiles; null when nothing committed.</summary>
    public required LatencySummary? LatencyMs { get; init; }

    /// <summary>Committed transactions per second in each one-second epoch of the window.</summary>
    public required IReadOnlyList<double> Epochs { get; init; }

    /// <summary>Sample standard deviation of <see cref="Epochs"/> (0 with fewer than two epochs).</summary>
    public required double EpochStdDev { get; init; }

    /// <summary>Seconds actually measured (shorter than the duration when interrupted).</summary>
    public required double MeasuredSeconds { get; init; }

    /// <summary>
    /// The longest stretch of the measured window in which no transaction committed, in seconds
    /// (to 1/100 s): how long the mode stood still, which throughput averages away.
    /// </summary>
    public double LongestNoCommitSeconds { get; init; }

    /// <summary>False when Ctrl+C or a stuck drain cut the run short.</summary>
    public required bool Completed { get; init; }

    /// <summary>Transactions still unfinished when the drain gave up (0 normally).</summary>
    public long StillInFlight { get; init; }

    /// <summary>What finished after the window, while the loops drained (not in any statistic above).</summary>
    public DrainSummary? Drain { get; init; }

    /// <summary>The money check, when <c>--verify</c> ran it.</summary>
    public VerificationResult? Verification { get; init; }

    /// <summary>TPC-C: the consistency check of conditions 1–4, when <c>--verify</c> ran it.</summary>
    public TpcCVerification? Consistency { get; init; }

    /// <summary>Modes that mix kinds (hybrid): the same measurements for each kind alone, by kind name; null otherwise.</summary>
    public IReadOnlyDictionary<string, RunResult>? Kinds { get; init; }

    /// <summary>
    /// Mixes crossed with variants (TPC-C hybrid: each type as a PACT or an ACT): the same
    /// measurements for each variant alone, by variant name; on a kind, that kind in each variant.
    /// Null otherwise.
    /// </summary>
    public IReadOnlyDictionary<string, RunResult>? Variants { get; init; }

    /// <summary>Seconds of load before measuring: <c>--warmup</c>, plus the seconds added while the JIT was still compiling (<c>--jit-settle</c>).</summary>
    public double? WarmupSeconds { get; init; }

    /// <summary>This process's garbage collections while the mode was measured (the embedded silos' too), or null.</summary>
    public GcSummary? Gc { get; init; }

    /// <summary>This process's CPU while the mode was measured (the embedded silos' too), or null.</summary>
    public CpuSummary? Cpu { get; init; }

    /// <summary>PACT runs: the mean number of PACTs per batch over the run, warm-up included.</summary>
    public double? AverageBatchSize { get; init; }

    /// <summary>PACT runs: where the batches measured inside the window spent their time, or null.</summary>
    public BatchPhases? BatchPhases { get; init; }

    /// <summary>
    /// ACT attempts per committed transaction over the whole run (warm-up included), counting the
    /// retries inside <c>RunAct</c> (<c>--act-attempts</c>) and promoted runs (<c>--promote</c>);
    /// set for act and act-elr, and hybrid's act kind.
    /// </summary>
    public double? AttemptsPerCommit { get; init; }

    /// <summary>
    /// ACT runs and kinds: the commits that came after promotion (<c>--promote</c>: an attempt
    /// aborted for a concurrency reason and the transaction ran again as a PACT), over the whole run
    /// (warm-up included), as <see cref="AttemptsPerCommit"/> is.
    /// </summary>
    public long? Promoted { get; init; }

    /// <summary>
    /// ACT runs and kinds: the reconnaissance runs of promoted ACTs whose bodies call in rounds (no
    /// lock, batch or log; they learn what the PACT declares), over the whole run as <see cref="Promoted"/>.
    /// Not attempts: none of them can commit.
    /// </summary>
    public long? Reconnoitred { get; init; }

    /// <summary>What the nemesis did in the measured window (<c>--nemesis</c>), and how the actors answered after it; null without one.</summary>
    public NemesisSummary? Nemesis { get; init; }
}
