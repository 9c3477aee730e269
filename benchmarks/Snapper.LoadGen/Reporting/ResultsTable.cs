using System.Globalization;
using Snapper.LoadGen.Measurement;
using Snapper.LoadGen.Nemesis;
using Snapper.LoadGen.Options;
using Snapper.LoadGen.Workloads.TpcC;
using Spectre.Console;
using TpcC.Transactions;

namespace Snapper.LoadGen.Reporting;

/// <summary>The stdout results: one row per mode, then each mode's throughput relative to nt.</summary>
public static class ResultsTable
{
    private static readonly string[] Headers = ["mode", "txn/s", "committed", "aborted", "abort %", "p50 ms", "p90 ms", "p99 ms", "no commit s"];

    /// <summary>
    /// Writes the table of <paramref name="report"/> to <paramref name="writer"/>: with rounded
    /// borders and colour on a <paramref name="terminal"/>, else as a markdown table, which reads
    /// well in a CI log and pastes into a document.
    /// </summary>
    public static void Write(TextWriter writer, LoadGenReport report, bool terminal = false)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(report);
        var config = report.Config;
        writer.WriteLine(Describe(config));
        writer.WriteLine(Invariant($"cluster: {report.Cluster.Kind}, {report.Cluster.Silos} silo(s)"));
        writer.WriteLine($"gc: {GcSummary.Settings()}");

        // A mode that mixes kinds (hybrid, the TPC-C types) is followed by one row per kind, named
        // mode:kind, then one per variant (TPC-C hybrid: pact, act), named mode:variant.
        var withKinds = report.Runs.SelectMany(WithKinds).ToList();
        var table = new Table { Border = terminal ? TableBorder.Simple : TableBorder.Markdown };
        foreach (var (header, i) in Headers.Select((h, i) => (h, i)))
        {
            table.AddColumn(new TableColumn(header) { Alignment = i == 0 ? Justify.Left : Justify.Right, NoWrap = true });
        }

        foreach (var row in withKinds.Select(Row))
        {
            table.AddRow(row.Select(cell => new Text(cell)).ToArray());
        }

        if (terminal)
        {
            Terminal.Console(writer, terminal).Write(table);
        }
        else
        {
            // The markdown border pads the table with blank lines; a log wants just the rows.
            using var rendered = new StringWriter(CultureInfo.InvariantCulture);
            Terminal.Console(rendered, terminal: false).Write(table);
            foreach (var line in rendered.ToString().Split('\n').Select(l => l.TrimEnd()).Where(l => l.Length > 0))
            {
                writer.WriteLine(line);
            }
        }

        if (report.Runs.Count == 0)
        {
            writer.WriteLine("(no mode ran)");
        }

        foreach (var run in report.Runs.Where(r => !r.Completed))
        {
            var measured = run.MeasuredSeconds > 0 ? Invariant($"{run.MeasuredSeconds:F1}s measured") : "stopped during the warm-up, nothing measured";
            writer.WriteLine(Invariant($"note: {run.Mode} was cut short: {measured}{(run.StillInFlight > 0 ? $", {run.StillInFlight} transaction(s) never finished" : "")}."));
        }

        foreach (var run in report.Runs.Where(r => r.Drain is { Slow: true }))
        {
            var drain = run.Drain!;
            var late = drain.AbortReasons.Count == 0 ? "no aborts" : "aborts: " + string.Join(", ", drain.AbortReasons.Select(kv => Invariant($"{kv.Key} {kv.Value:N0}")));
            writer.WriteLine(Invariant($"note: {run.Mode} took {drain.Seconds:F1}s to drain after the window ({drain.Committed:N0} committed, {late}): transactions were stuck."));
        }

        var nt = report.Runs.FirstOrDefault(r => r.Mode == ModeNames.Nt);
        if (nt is not null && nt.Throughput > 0)
        {
            foreach (var run in report.Runs.Where(r => r.Mode != ModeNames.Nt && r.MeasuredSeconds > 0))
            {
                writer.WriteLine(Invariant($"{run.Mode} / nt throughput: {run.Throughput / nt.Throughput:F3}"));
            }
        }

        var act = report.Runs.FirstOrDefault(r => r.Mode == ModeNames.Act);
        var pact = report.Runs.FirstOrDefault(r => r.Mode == ModeNames.Pact);
        if (act is not null && pact is not null && act.Throughput > 0)
        {
            writer.WriteLine(Invariant($"pact / act throughput: {pact.Throughput / act.Throughput:F2}"));
        }

        // Snapper against Orleans' own transactions, the comparison the project exists to make, in
        // each form of the peer that ran (orleans-txn is its best; the parallel form is for the record).
        foreach (var peer in report.Runs.Where(r => ModeNames.IsOrleansTxn(r.Mode) && r.Throughput > 0))
        {
            foreach (var run in report.Runs.Where(r => r.Mode is ModeNames.Pact or ModeNames.Act or ModeNames.ActElr or ModeNames.Hybrid && r.MeasuredSeconds > 0))
            {
                writer.WriteLine(Invariant($"{run.Mode} / {peer.Mode} throughput: {run.Throughput / peer.Throughput:F2}"));
            }
        }

        // Each mode, and each kind of a mixed one (named mode:kind); the kind says who retried it.
        var retrying = report.Runs.SelectMany(r => (r.Kinds ?? new Dictionary<string, RunResult>())
            .Select(k => (Name: $"{r.Mode}:{k.Key}", Kind: k.Key, Run: k.Value))
            .Prepend((Name: r.Mode, Kind: r.Mode, Run: r)));
        foreach (var (name, kind, run) in retrying.Where(r => r.Run.AttemptsPerCommit is not null))
        {
            var (runner, most) = kind == ModeNames.Pact ? ("RunPact", config.PactAttempts) : ("RunAct", config.ActAttempts);
            var promoted = kind != ModeNames.Pact && config.Promote ? ", and its promoted runs" : "";
            writer.WriteLine(Invariant($"{name} attempts per commit: {run.AttemptsPerCommit:F2} (retries inside {runner} included, up to {most} attempt(s) each{promoted})"));
        }

        foreach (var (name, _, run) in retrying.Where(r => r.Run.Promoted is not null))
        {
            writer.WriteLine(config.Promote
                ? Invariant($"{name} promoted: {run.Promoted:N0} commits came as PACTs: after the ACT attempt lost its race, or at once while most ACTs were losing theirs; {run.Reconnoitred ?? 0:N0} reconnaissance runs learned bodies' calls that come in rounds (whole run)")
                : Invariant($"{name} promoted: none (--promote off)"));
        }

        foreach (var run in report.Runs.Where(r => r.AverageBatchSize is not null))
        {
            writer.WriteLine(Invariant($"{run.Mode} average batch size: {run.AverageBatchSize:F1} PACTs"));
        }

        foreach (var run in report.Runs.Where(r => r.BatchPhases is not null))
        {
            var phases = run.BatchPhases!;
            writer.WriteLine(Invariant($"{run.Mode} batch phases in the window, p50 / p90 ms: formed {Phase(phases.Formed)}, completed {Phase(phases.Completed)}, committed {Phase(phases.Committed)} (waiting for the token and the batches in flight; running on the actors; behind the batches before it and the log)"));
        }

        foreach (var run in report.Runs.Where(r => r.WarmupSeconds > config.WarmupSeconds + 0.5))
        {
            writer.WriteLine(Invariant($"{run.Mode} warm-up: {run.WarmupSeconds:F0}s, {run.WarmupSeconds - config.WarmupSeconds:F0}s past --warmup while the JIT was still compiling"));
        }

        // This process's figures: with an embedded cluster the silos run in it too.
        var inProcess = report.Cluster.Kind == Cluster.EmbeddedCluster.KindName ? "silos and load" : "load generator";
        foreach (var run in report.Runs.Where(r => r.Gc is { Gen0: > 0 } or { Gen1: > 0 } or { Gen2: > 0 }))
        {
            var gc = run.Gc!;
            writer.WriteLine(Invariant($"{run.Mode} GC ({inProcess}): paused {gc.PausePercent:F1}% of the measured time, {gc.Gen0 + gc.Gen1 + gc.Gen2:N0} collections (gen0 {gc.Gen0:N0}, gen1 {gc.Gen1:N0}, gen2 {gc.Gen2:N0}), {gc.MeanPauseMs:F1} ms each"));
        }

        foreach (var run in report.Runs.Where(r => r.Cpu is not null))
        {
            var cpu = run.Cpu!;
            writer.WriteLine(Invariant($"{run.Mode} CPU ({inProcess}): {cpu.Cores:F2} cores, {cpu.MicrosecondsPer(run.Throughput):F0} µs per committed transaction"));
        }

        if (report.Workload == LoadGenCommandLine.TpcC)
        {
            foreach (var run in report.Runs)
            {
                if (NewOrderLine(run, config.NewOrderOnly) is { } line)
                {
                    writer.WriteLine(line);
                }
            }
        }

        foreach (var run in withKinds.Where(r => r.AbortReasons.Count > 0))
        {
            writer.WriteLine($"{run.Mode} aborts: {string.Join(", ", run.AbortReasons.Select(kv => Invariant($"{kv.Key} {kv.Value:N0}")))}");
        }

        foreach (var run in report.Runs.Where(r => r.InTheWay.Count > 0))
        {
            writer.WriteLine($"{run.Mode} in the way (share of its aborted attempts, retries included): {string.Join(", ", run.InTheWay)}");
        }

        foreach (var run in report.Runs.Where(r => r.Nemesis is not null))
        {
            writer.WriteLine(NemesisLine(run.Mode, run.Nemesis!));
            if (run.Nemesis!.Liveness is { } liveness)
            {
                writer.WriteLine(LivenessLine(run.Mode, liveness));
            }
        }

        foreach (var run in report.Runs.Where(r => r.Verification is not null))
        {
            var v = run.Verification!;
            writer.WriteLine(v.Ok
                ? Invariant($"{run.Mode} verify: ok ({v.Accounts:N0} accounts hold {v.Actual:N0})")
                : Invariant($"{run.Mode} verify: FAILED: {v.Accounts:N0} accounts hold {v.Actual:N0}, expected {v.Expected:N0} (difference {v.Difference:+#,0.##;-#,0.##})"));
        }

        foreach (var run in report.Runs.Where(r => r.Consistency is not null))
        {
            var c = run.Consistency!;
            writer.WriteLine(c.Ok
                ? Invariant($"{run.Mode} verify: ok (TPC-C consistency conditions 1-4 hold on {c.Warehouses} warehouse(s), {c.Districts} districts)")
                : Invariant($"{run.Mode} verify: FAILED: TPC-C condition(s) {c.DescribeViolated()} violated ({c.Violations.Count} violation(s); first: {c.Violations[0]})"));
        }
    }

    /// <summary>
    /// TPC-C: "<c>mode NewOrder throughput: X/s (tpmC Y)</c>" from the mode's <c>neworder</c> row
    /// (the whole mode with --neworder-only), with hybrid's PACT/ACT split; null if there is none.
    /// </summary>
    public static string? NewOrderLine(RunResult run, bool newOrderOnly)
    {
        ArgumentNullException.ThrowIfNull(run);
        var newOrder = run.Kinds?.GetValueOrDefault(TpcCWorkload.KindName(TpcCTransactionType.NewOrder)) ?? (newOrderOnly ? run : null);
        if (newOrder is null || run.MeasuredSeconds <= 0)
        {
            return null;
        }

        var line = Invariant($"{run.Mode} NewOrder throughput: {newOrder.Throughput:N1}/s (tpmC {newOrder.Throughput * 60:N0}; {newOrder.Committed:N0} committed, {newOrder.Aborted:N0} aborted)");
        if (newOrder.Variants is { Count: > 0 } variants)
        {
            line += "; " + string.Join(", ", variants.Select(kv => Invariant($"as {kv.Key} {kv.Value.Throughput:N1}/s")));
        }

        return line;
    }

    /// <summary>"<c>mode nemesis: ...</c>": what the nemesis did in <paramref name="mode"/>'s measured window, fault by fault.</summary>
    public static string NemesisLine(string mode, NemesisSummary nemesis)
    {
        ArgumentNullException.ThrowIfNull(nemesis);
        var parts = new List<string>();
        if (nemesis.Faults.Contains(NemesisFaults.Deactivate))
        {
            parts.Add(Invariant($"{nemesis.Deactivations:N0} deactivations requested ({nemesis.DeactivationsFailed:N0} failed)"));
        }

        if (nemesis.Faults.Contains(NemesisFaults.Migrate))
        {
            parts.Add(Invariant($"{nemesis.Migrations:N0} migrations requested ({nemesis.MigrationsFailed:N0} failed)"));
        }

        if (nemesis.Faults.Contains(NemesisFaults.Delay))
        {
            parts.Add(Invariant($"{nemesis.DelayedCalls:N0} calls delayed {CallFaults.MinDelayMs}-{CallFaults.MaxDelayMs} ms"));
        }

        if (nemesis.ResponseTimeoutSeconds is { } timeout)
        {
            parts.Add(Invariant($"{nemesis.LateAnswers:N0} answers held past the {timeout:0.#} s response timeout"));
        }

        if (nemesis.Faults.Contains(NemesisFaults.Delay) || nemesis.Faults.Contains(NemesisFaults.Timeout))
        {
            parts.Add(Invariant($"{nemesis.TimedOutCalls:N0} calls timed out"));
        }

        var line = Invariant($"{mode} nemesis ({nemesis.Actors:N0} actors): {string.Join(", ", parts)}");
        return nemesis.FirstRequestFailure is { } first ? $"{line}; first failed request: {first}" : line;
    }

    /// <summary>"<c>mode after the nemesis: ...</c>": how every actor answered a read once the nemesis stopped.</summary>
    public static string LivenessLine(string mode, LivenessSummary liveness)
    {
        ArgumentNullException.ThrowIfNull(liveness);
        var answered = liveness.Actors - liveness.Failed;
        var line = liveness.Failed == 0
            ? Invariant($"{mode} after the nemesis: all {liveness.Actors:N0} actors answered a read, the slowest in {liveness.SlowestMs:F1} ms")
            : Invariant($"{mode} after the nemesis: {liveness.Failed:N0} of {liveness.Actors:N0} actors did not answer a read within {LivenessProbe.Patience.TotalSeconds:0} s (first: {liveness.FirstFailure}); the other {answered:N0}, the slowest in {liveness.SlowestMs:F1} ms");
        return liveness.OverOneSecond > 0 ? line + Invariant($", {liveness.OverOneSecond:N0} after more than 1 s") : line;
    }

    /// <summary>One line naming the load, so a pasted table says what it measured.</summary>
    public static string Describe(LoadGenOptions config)
    {
        ArgumentNullException.ThrowIfNull(config);
        var dist = config.Dist switch
        {
            Distribution.Zipf => Invariant($"zipf (s={config.Zipf:0.###})"),
            Distribution.Hotspot => "hotspot (1% hot, 75% of accesses)",
            _ => "uniform",
        };
        if (config.Workload == LoadGenCommandLine.TpcC)
        {
            var mix = config.NewOrderOnly ? "NewOrder only" : "standard mix (NewOrder 45%, Payment 43%, OrderStatus, Delivery, StockLevel 4% each)";
            var hybrid = config.Modes.Contains(ModeNames.Hybrid) ? Invariant($", hybrid {config.PactPercent}% PACTs") : "";
            return Invariant($"tpcc: {config.Warehouses} warehouse(s) per mode, {mix}{hybrid}, {config.Clients} clients × {config.Pipeline} in flight, ")
                + Invariant($"warm-up {config.WarmupSeconds:0.##}s, measured {config.DurationSeconds:0.##}s, logger {(config.Logger == LoggerKind.AzureTable ? "azure-table" : config.Logger.ToString().ToLowerInvariant())}, seed {config.Seed}");
        }

        return Invariant($"{config.Workload}: {config.Actors:N0} actors, txn size {config.TxnSize}, dist {dist}, {config.Clients} clients × {config.Pipeline} in flight, ")
            + Invariant($"warm-up {config.WarmupSeconds:0.##}s, measured {config.DurationSeconds:0.##}s, logger {(config.Logger == LoggerKind.AzureTable ? "azure-table" : config.Logger.ToString().ToLowerInvariant())}, seed {config.Seed}");
    }

    private static IEnumerable<RunResult> WithKinds(RunResult run)
    {
        yield return run;
        foreach (var (kind, result) in run.Kinds ?? new Dictionary<string, RunResult>())
        {
            yield return result with { Mode = $"{run.Mode}:{kind}" };
        }

        foreach (var (variant, result) in run.Variants ?? new Dictionary<string, RunResult>())
        {
            yield return result with { Mode = $"{run.Mode}:{variant}" };
        }
    }

    private static string[] Row(RunResult run) =>
    [
        run.Mode,
        Invariant($"{run.Throughput:N1}"),
        Invariant($"{run.Committed:N0}"),
        Invariant($"{run.Aborted:N0}"),
        Invariant($"{run.AbortPercent:F2}"),
        Ms(run.LatencyMs?.P50),
        Ms(run.LatencyMs?.P90),
        Ms(run.LatencyMs?.P99),
        run.MeasuredSeconds > 0 ? Invariant($"{run.LongestNoCommitSeconds:F2}") : "-",
    ];

    private static string Phase(LatencySummary? phase) => phase is null ? "-" : Invariant($"{phase.P50:F1} / {phase.P90:F1}");

    private static string Ms(double? value) => value is { } ms ? Invariant($"{ms:F2}") : "-";

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
