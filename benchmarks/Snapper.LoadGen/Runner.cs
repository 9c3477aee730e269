using System.Collections.Concurrent;
using System.CommandLine;
using Snapper.History;
using Snapper.LoadGen.Measurement;
using Snapper.LoadGen.Nemesis;
using Snapper.LoadGen.Options;
using Snapper.LoadGen.Reporting;
using Snapper.LoadGen.Cluster;
using Snapper.LoadGen.Workloads;
using Snapper.LoadGen.Workloads.TpcC;

namespace Snapper.LoadGen;

/// <summary>
/// The whole CLI, callable in-process: parse, start the embedded silo, run each mode in turn on
/// the same silo and keys, verify, report. Writers are parameters so a test can capture them.
/// </summary>
public static class Runner
{
    /// <summary>Parses <paramref name="args"/> and runs them; returns the exit code (see <see cref="ExitCodes"/>).</summary>
    public static async Task<int> MainAsync(IReadOnlyList<string> args, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(args);
        ArgumentNullException.ThrowIfNull(stdout);
        ArgumentNullException.ThrowIfNull(stderr);
        var parsed = LoadGenCommandLine.Create().Parse([.. args]);
        if (parsed.Errors.Count == 0 && parsed.Action is not null)
        {
            // --help, --version, [suggest]: answered from the same definitions that parse.
            return await parsed.InvokeAsync(new InvocationConfiguration { Output = stdout, Error = stderr }, cancellationToken);
        }

        if (UsageErrors.Describe(parsed) is { } problem)
        {
            await stderr.WriteLineAsync($"error: {problem}");
            await stderr.WriteLineAsync(UsageErrors.HelpHint(parsed));
            return ExitCodes.Usage;
        }

        return parsed.CommandResult.Command.Name switch
        {
            LoadGenCommandLine.Check => await CheckCommand.RunAsync(LoadGenCommandLine.CheckFiles(parsed), stdout, stderr, cancellationToken),
            LoadGenCommandLine.Idle => await IdleProbe.RunAsync(LoadGenCommandLine.IdleSeconds(parsed), stdout, stderr, cancellationToken),
            LoadGenCommandLine.Figures => await RunFiguresAsync(LoadGenCommandLine.FiguresSettings(parsed), stdout, stderr, cancellationToken),
            SalvageCommand.Name => await SalvageCommand.RunAsync(parsed, stdout, stderr, cancellationToken),
            ScaleCommand.Name => await ScaleCommand.RunAsync(parsed, stdout, stderr, cancellationToken),
            _ => await RunAsync(LoadGenCommandLine.Options(parsed), stdout, stderr, cancellationToken),
        };
    }

    private static Task<int> RunFiguresAsync((string Folder, int Actors, double Warmup, double Duration, bool Replot) settings, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken) =>
        settings.Replot
            ? Figures.FigureRunner.ReplotAsync(settings.Folder, settings.Actors, settings.Warmup, settings.Duration, stdout, stderr)
            : Figures.FigureRunner.RunAsync(settings.Folder, settings.Actors, settings.Warmup, settings.Duration, stdout, stderr, cancellationToken);

    /// <summary>Runs <paramref name="options"/>; returns the exit code (see <see cref="ExitCodes"/>).</summary>
    public static async Task<int> RunAsync(LoadGenOptions options, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken) =>
        (await ExecuteAsync(options, stdout, stderr, cancellationToken)).ExitCode;

    /// <summary>
    /// Runs <paramref name="options"/> and returns the exit code with the report (null if the
    /// options were rejected or the silo did not start). Cancelling stops issuing transactions,
    /// drains the ones in flight and still reports what was measured.
    /// </summary>
    public static async Task<RunOutcome> ExecuteAsync(LoadGenOptions options, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(stdout);
        ArgumentNullException.ThrowIfNull(stderr);

        // Progress comes from a timer thread while the main flow also writes.
        var terminal = Terminal.IsInteractive(stderr);
        stdout = TextWriter.Synchronized(stdout);
        stderr = TextWriter.Synchronized(stderr);
        try
        {
            LoadGenValidation.Validate(options);
        }
        catch (UsageException e)
        {
            await stderr.WriteLineAsync($"error: {e.Message}");
            return new RunOutcome(ExitCodes.Usage, null);
        }

        // Up front: a log directory the logger cannot write would otherwise fail every transaction,
        // and an output file that cannot be written would be found only after the whole run.
        if (options.Logger == LoggerKind.File && options.LogDir is { } logDir && LoadGenValidation.LogDirectoryProblem(logDir) is { } reason)
        {
            await stderr.WriteLineAsync($"error: --log-dir {logDir}: cannot write and fsync a file there: {reason}");
            return new RunOutcome(ExitCodes.Usage, null);
        }

        foreach (var (flag, path) in (ReadOnlySpan<(string, string?)>)[("--json", options.Json), ("--history", options.History), ("--dump", options.Dump)])
        {
            if (path is not null && LoadGenValidation.OutputFileProblem(path) is { } problem)
            {
                await stderr.WriteLineAsync($"error: {flag} {path}: cannot write it: {problem}");
                return new RunOutcome(ExitCodes.Usage, null);
            }
        }

        if (options.Logger == LoggerKind.AzureTable && options.Cluster is null && await ServiceProbes.AzureTableProblemAsync(options.Connection, cancellationToken) is { } unreachable)
        {
            await stderr.WriteLineAsync($"error: --logger azure-table: {unreachable}");
            return new RunOutcome(ExitCodes.Failure, null);
        }

        if (options.Logger == LoggerKind.File && options.LogDir is not null && Directory.Exists(options.LogDir) && Directory.EnumerateFileSystemEntries(options.LogDir).Any())
        {
            // The silo recovers the committed state logged there, so accounts do not start fresh.
            await stderr.WriteLineAsync($"note: {options.LogDir} holds logs of an earlier run: the silo recovers their state, and --verify's expected totals assume fresh accounts.");
        }

        try
        {
            if (options.Cluster is { } listed && await UnreachableCluster(listed, cancellationToken) is { } nobody)
            {
                await stderr.WriteLineAsync($"error: --cluster {string.Join(",", listed)}: {nobody}");
                return new RunOutcome(ExitCodes.Failure, null);
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            await stderr.WriteLineAsync("Interrupted before the cluster was ready.");
            return new RunOutcome(ExitCodes.Interrupted, null);
        }

        // The call-level faults need this process's own silos (validation refused them with --cluster).
        var callFaults = options.Nemesis.Count > 0 && options.Cluster is null ? new CallFaults(options.Nemesis) : null;
        var nemesis = options.Nemesis.Count > 0 ? new NemesisSettings(options.Nemesis, options.NemesisRate, callFaults, options.Seed) : null;
        ILoadGenCluster silo;
        ClusterInfo cluster;
        try
        {
            silo = options.Cluster is { } gateways
                ? await ExternalCluster.ConnectAsync([.. gateways.Select(g => LoadGenValidation.Endpoint(g))], options.PactAttempts, options.Promote, TimeSpan.FromSeconds(options.ResponseTimeoutSeconds), stderr, options.Verbose, cancellationToken)
                : await EmbeddedCluster.StartAsync(options, stderr, cancellationToken, callFaults);
            cluster = new ClusterInfo(silo.Kind, await silo.CountSilos());
        }
        catch (Exception) when (cancellationToken.IsCancellationRequested)
        {
            // Interrupted (Ctrl+C) while the silo started: Orleans says so as its own exception
            // ("Lifecycle start canceled ... by request"), which is no start failure.
            await stderr.WriteLineAsync("Interrupted before the cluster was ready.");
            return new RunOutcome(ExitCodes.Interrupted, null);
        }
#pragma warning disable CA1031 // Any start-up failure is reported as such, with its message, and exit code 1.
        catch (Exception e)
#pragma warning restore CA1031
        {
            var what = options.Cluster is { } list ? $"--cluster {string.Join(",", list)}: could not connect" : "the embedded silo failed to start";
            var logDirectory = options.Cluster is null && options.Logger == LoggerKind.File ? options.LogDir : null;
            await stderr.WriteLineAsync(options.Verbose ? $"error: {what}: {e}" : $"error: {what}: {StartFailure.Describe(e, logDirectory, $"is another LoadGen or SiloHost running on --log-dir {logDirectory}?")} (--verbose for the whole exception)");
            return new RunOutcome(ExitCodes.Failure, null);
        }

        await using (silo)
        {
            List<RunResult> runs;
            bool failed, interrupted;
            string? checkReport = null;
            if (LoadGenValidation.WritesHistory(options.Workload))
            {
                var outcome = await RunListAppendAsync(options, silo, nemesis, stderr, terminal, cancellationToken);
                (runs, failed, interrupted, checkReport) = (outcome.Runs, outcome.Failed, outcome.Interrupted, outcome.CheckReport);
            }
            else if (options.Workload == LoadGenCommandLine.TpcC)
            {
                (runs, failed, interrupted) = await RunTpcCAsync(options, silo, nemesis, stderr, terminal, cancellationToken);
            }
            else
            {
                var blockers = new AbortBlockers();
                var workload = new SmallBankWorkload(silo.Client, silo.Grains, options.Actors, options.PactPercent, options.ActAttempts, options.Promote, blockers.Record, options.AfterCommit);
                (runs, failed, interrupted) = await RunModesAsync(options, workload.For, workload, null, null, Plan(nemesis, workload, silo, options), blockers, stderr, terminal, cancellationToken);
                var snapperModes = options.Modes.Where(m => m != ModeNames.Nt && !ModeNames.IsOrleansTxn(m)).ToList();
                if (options.AfterCommitCompared && snapperModes.Count > 0 && !failed && !interrupted)
                {
                    // Snapper's modes again on the same accounts, each transfer now with its notice.
                    var notifying = new SmallBankWorkload(silo.Client, silo.Grains, options.Actors, options.PactPercent, options.ActAttempts, options.Promote, blockers.Record, notify: true);
                    var (again, againFailed, againInterrupted) = await RunModesAsync(options with { Modes = snapperModes }, notifying.For, notifying, null, null, Plan(nemesis, notifying, silo, options), blockers, stderr, terminal, cancellationToken);
                    runs = [.. runs, .. again.Select(run => run with { Mode = $"{run.Mode}+after-commit" })];
                    (failed, interrupted) = (againFailed, againInterrupted);
                }
            }

            var report = new LoadGenReport(options.Workload, options, cluster, runs);
            await stdout.WriteLineAsync();
            ResultsTable.Write(stdout, report, terminal);
            if (checkReport is not null)
            {
                await stdout.WriteLineAsync();
                await stdout.WriteAsync(checkReport);
            }

            if (silo.LogDirectory is not null)
            {
                await stdout.WriteLineAsync(FormattableString.Invariant($"file log: {silo.LogBytes() / (1024.0 * 1024.0):F1} MiB on disk in {silo.LogDirectory}"));
            }

            if (options.Json is { } path)
            {
                try
                {
                    await JsonReport.WriteAsync(path, report, CancellationToken.None);
                    await stderr.WriteLineAsync($"wrote {path}");
                }
                catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
                {
                    await stderr.WriteLineAsync($"error: could not write --json {path}: {e.Message}");
                    failed = true;
                }
            }

            var exitCode = failed ? ExitCodes.Failure : interrupted ? ExitCodes.Interrupted : ExitCodes.Ok;
            return new RunOutcome(exitCode, report);
        }
    }

    private static async Task<(List<RunResult> Runs, bool Failed, bool Interrupted, string? CheckReport)> RunListAppendAsync(
        LoadGenOptions options, ILoadGenCluster silo, NemesisSettings? nemesis, TextWriter stderr, bool terminal, CancellationToken cancellationToken)
    {
        HistoryWriter? writer = null;
        if (options.History is { } historyPath)
        {
            try
            {
                CreateParent(historyPath);
                writer = new HistoryWriter(historyPath);
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
            {
                await stderr.WriteLineAsync($"error: could not create --history {historyPath}: {e.Message}");
                return ([], true, false, null);
            }
        }

        // The checker needs the whole history in memory; keep it only when --verify asks for it.
        var inMemory = options.Verify ? new ConcurrentQueue<HistoryEntry>() : null;
        var historyFailed = 0;
        void Record(HistoryEntry entry)
        {
            inMemory?.Enqueue(entry);
            try
            {
                writer?.Append(entry);
            }
            catch (Exception e) when (e is IOException or ObjectDisposedException)
            {
                // Reported once, after the run; a failed history must not count as aborts.
                Interlocked.Exchange(ref historyFailed, 1);
            }
        }

        var blockers = new AbortBlockers();
        var workload = new ListAppendWorkload(silo.Client, options.Actors, options.PactPercent, Record, options.UserAborts, options.Promote, nested: options.Workload == LoadGenCommandLine.Nested, onRetry: blockers.Record, announce: options.AfterCommit);
        var (runs, failed, interrupted) = await RunModesAsync(options, workload.For, null, workload, null, Plan(nemesis, workload, silo, options), blockers, stderr, terminal, cancellationToken);

        if (writer is not null)
        {
            try
            {
                await writer.DisposeAsync();
                await stderr.WriteLineAsync(FormattableString.Invariant($"wrote {writer.WrittenCount:N0} history entries to {options.History}"));
            }
            catch (IOException e)
            {
                await stderr.WriteLineAsync($"error: writing --history {options.History} failed: {e.InnerException?.Message ?? e.Message}");
                failed = true;
            }
        }

        if (Volatile.Read(ref historyFailed) != 0)
        {
            failed = true;
        }

        if (options.Dump is null && !options.Verify)
        {
            return (runs, failed, interrupted, null);
        }

        if (runs.Any(r => r.StillInFlight > 0))
        {
            await stderr.WriteLineAsync("error: lists not read, so no --dump and no --verify: transactions are still in flight and the reads would wait behind them.");
            return (runs, true, interrupted, null);
        }

        var lists = new Dictionary<string, IReadOnlyList<long>>(StringComparer.Ordinal);
        foreach (var run in runs)
        {
            try
            {
                foreach (var (actor, tids) in await workload.ReadListsAsync(run.Mode, options.Clients * options.Pipeline, CancellationToken.None))
                {
                    lists[actor] = tids;
                }
            }
#pragma warning disable CA1031 // A failed read is a failed dump and verification, reported with its cause.
            catch (Exception e)
#pragma warning restore CA1031
            {
                await stderr.WriteLineAsync($"[{run.Mode}] error: could not read the lists: {e.Message}");
                return (runs, true, interrupted, null);
            }
        }

        // Actors in key order, so the dump is stable and readable.
        var ordered = lists.OrderBy(kv => long.Parse(kv.Key, System.Globalization.CultureInfo.InvariantCulture))
            .ToDictionary(kv => kv.Key, kv => kv.Value, StringComparer.Ordinal);
        if (options.Dump is { } dumpPath)
        {
            try
            {
                CreateParent(dumpPath);
                await ListDump.WriteAsync(dumpPath, ordered, CancellationToken.None);
                await stderr.WriteLineAsync(FormattableString.Invariant($"wrote {ordered.Count:N0} lists ({ordered.Values.Sum(l => (long)l.Count):N0} elements) to {dumpPath}"));
            }
            catch (Exception e) when (e is IOException or UnauthorizedAccessException or NotSupportedException or ArgumentException)
            {
                await stderr.WriteLineAsync($"error: could not write --dump {dumpPath}: {e.Message}");
                failed = true;
            }
        }

        string? checkReport = null;
        if (inMemory is not null)
        {
            var result = ListAppendChecker.Check([.. inMemory], ordered);
            checkReport = CheckReport.Render(result);
            failed |= !result.Ok;
        }

        return (runs, failed, interrupted, checkReport);
    }

    /// <summary>
    /// TPC-C: before each mode, load that mode's database (its own, named after it); run the
    /// standard mix (or NewOrder only) with one row per transaction type; with --verify, check
    /// consistency conditions 1–4 after the mode drained.
    /// </summary>
    private static Task<(List<RunResult> Runs, bool Failed, bool Interrupted)> RunTpcCAsync(
        LoadGenOptions options, ILoadGenCluster silo, NemesisSettings? nemesis, TextWriter stderr, bool terminal, CancellationToken cancellationToken)
    {
        var workload = new TpcCWorkload(silo.Client, TpcCWorkload.DefaultConfig(options.Warehouses), options.PactPercent);
        var hooks = new TpcCHooks(workload, stderr, cancellationToken);
        return RunModesAsync(options, mode => workload.Kinds(mode, options.NewOrderOnly), null, null, hooks, Plan(nemesis, workload, silo, options), new AbortBlockers(), stderr, terminal, cancellationToken);
    }

    private static async Task<(List<RunResult> Runs, bool Failed, bool Interrupted)> RunModesAsync(
        LoadGenOptions options, Func<string, TransactionMix> issueFor, SmallBankWorkload? smallBank, ListAppendWorkload? listAppend,
        TpcCHooks? tpcc, ModeActors plan, AbortBlockers blockers, TextWriter stderr, bool terminal, CancellationToken cancellationToken)
    {

        var picker = ActorPicker.Create(options);
        var runs = new List<RunResult>();
        var failed = false;
        foreach (var mode in options.Modes)
        {
            if (cancellationToken.IsCancellationRequested)
            {
                await stderr.WriteLineAsync($"[{mode}] skipped: interrupted.");
                return (runs, failed, true);
            }

            if (tpcc is not null && !await tpcc.LoadAsync(mode))
            {
                foreach (var skipped in options.Modes.SkipWhile(m => m != mode).Skip(1))
                {
                    await stderr.WriteLineAsync($"[{skipped}] skipped: {mode} could not be loaded.");
                }

                return (runs, true, cancellationToken.IsCancellationRequested);
            }

            await stderr.WriteLineAsync(FormattableString.Invariant(
                $"[{mode}] {options.Clients * options.Pipeline} loops: warm-up {options.WarmupSeconds:0.##}s, then measuring {options.DurationSeconds:0.##}s"));
            var touched = options.Verify && smallBank is not null ? new bool[options.Actors] : null;
            using var batchSizes = new BatchSizeListener();
            using var batchPhases = new BatchPhaseListener();
            using var retries = new RetryListener();
            blockers.Reset();
            var nemesisActors = plan.Nemesis is not null ? plan.Actors.Grains(mode, plan.Grains) : null;
            var nemesisLoop = plan.Nemesis is { } nemesis ? new NemesisLoop(nemesis, nemesisActors!) : null;
            var (result, driver) = await ProgressLine.ShowAsync(stderr, terminal, mode, options.WarmupSeconds, options.DurationSeconds, async onTick =>
            {
                var driver = new LoadDriver(options, picker) { Touched = touched, OnTick = onTick, DuringWindow = nemesisLoop is null ? null : nemesisLoop.RunAsync, ClusterLost = plan.Lost, OnAbort = blockers.Record };
                return (await driver.RunAsync(mode, issueFor(mode), cancellationToken), driver);
            });
            if (listAppend?.CutOff(mode) is > 0 and var cut)
            {
                await stderr.WriteLineAsync(FormattableString.Invariant($"[{mode}] {cut} transaction(s) still in flight at the cut-off are recorded as unknown."));
            }

            if (batchSizes.Snapshot() is { Batches: > 0 } formed)
            {
                result = result with { AverageBatchSize = (double)formed.Pacts / formed.Batches };
            }

            if (driver.Window is { } measuredWindow && batchPhases.Summary(measuredWindow) is { } phases)
            {
                result = result with { BatchPhases = phases };
            }

            result = WithAttemptsPerCommit(result, mode, driver, retries, options) with { InTheWay = blockers.Top(), ConcurrencyAbortsWithoutBlocker = blockers.WithoutBlocker };
            if (nemesisLoop is not null)
            {
                result = result with { Nemesis = nemesisLoop.Summary(await ProbeLivenessAsync(mode, result, plan.Actors, nemesisActors!.Count, stderr)) };
            }

            if (driver.FirstFailure is { } first && driver.StoppedByFailures is null)
            {
                await stderr.WriteLineAsync($"[{mode}] first error: {first}");
            }

            if (driver.StoppedByFailures is { } why)
            {
                await stderr.WriteLineAsync($"[{mode}] error: stopped: {why}");
                failed = true;
            }
            else if (result.Committed == 0 && driver.FirstFailure is not null && options.Nemesis.Count == 0)
            {
                // Shorter than the failures' stop (a window of a few seconds): still a mode that
                // failed. Not under a nemesis: there, failures are the faults it was asked for.
                await stderr.WriteLineAsync($"[{mode}] error: no transaction committed in the window, and transactions failed (the first error is above).");
                failed = true;
            }

            if (result.Drain is { Slow: true } drain)
            {
                await stderr.WriteLineAsync(FormattableString.Invariant(
                    $"[{mode}] warning: the transactions in flight took {drain.Seconds:F1}s to finish after the window; late aborts: {(drain.AbortReasons.Count == 0 ? "none" : string.Join(", ", drain.AbortReasons.Select(kv => $"{kv.Key} {kv.Value}")))}."));
            }

            if (result.StillInFlight > 0 && driver.ClusterWent)
            {
                await stderr.WriteLineAsync(FormattableString.Invariant(
                    $"[{mode}] {result.StillInFlight} transaction(s) were in flight when the cluster went: their outcome is unknown."));
            }
            else if (result.StillInFlight > 0)
            {
                await stderr.WriteLineAsync(FormattableString.Invariant(
                    $"[{mode}] error: {result.StillInFlight} transaction(s) did not finish within {LoadDriver.DrainLimit(options).TotalSeconds:0}s after issuing stopped; the runtime looks stuck."));
                failed = true;
            }

            if (touched is not null && smallBank is not null)
            {
                result = await VerifyAsync(mode, result, touched, smallBank, options, stderr);
                failed |= result.Verification is { Ok: false } || (result.Verification is null && result.StillInFlight == 0);
            }

            if (tpcc is not null && options.Verify)
            {
                result = await tpcc.VerifyAsync(mode, result);
                failed |= result.Consistency is not { Ok: true };
            }

            runs.Add(result);
            if (result.Completed && plan.LetGoBetweenModes && mode != options.Modes[^1])
            {
                await stderr.WriteLineAsync($"[{mode}] {await FinishedMode.LetGoAsync(plan.Actors.Grains(mode, plan.Grains), plan.Grains, options.CheckpointIntervalSeconds > 0)}");
            }

            if (!result.Completed)
            {
                // Interrupted (or stuck): later modes would measure a silo still busy with this one.
                foreach (var skipped in options.Modes.SkipWhile(m => m != mode).Skip(1))
                {
                    await stderr.WriteLineAsync($"[{skipped}] skipped: {(driver.StoppedByFailures is not null ? "the previous mode failed" : result.StillInFlight > 0 ? "the previous mode did not drain" : "interrupted")}.");
                }

                return (runs, failed, true);
            }
        }

        return (runs, failed, false);
    }

    // Null once any gateway accepts a connection (the client needs one; it finds the rest), else
    // what the probes of every gateway said, so an unreachable cluster is one line within seconds.
    private static async Task<string?> UnreachableCluster(IReadOnlyList<string> gateways, CancellationToken cancellationToken)
    {
        var problems = await Task.WhenAll(gateways.Select(g => ServiceProbes.TcpProblemAsync(LoadGenValidation.Endpoint(g), cancellationToken)));
        return problems.Any(p => p is null) ? null : string.Join("; ", problems);
    }

    // The workload's actors and the grain factory that reaches them: the nemesis of each mode acts on
    // them, where --nemesis asks for one, and a finished mode's go before the next, on embedded silos
    // that log (--logger none: one let go would come back empty; --cluster: not this process's silos).
    private static ModeActors Plan(NemesisSettings? nemesis, IWorkloadActors actors, ILoadGenCluster silo, LoadGenOptions options) =>
        new(actors, silo.Grains, nemesis, LetGoBetweenModes: options.Cluster is null && options.Logger != LoggerKind.None, Lost: () => silo.Lost);

    // Once the nemesis stopped and the load drained: does every actor answer a read, and how fast?
    private static async Task<LivenessSummary?> ProbeLivenessAsync(string mode, RunResult result, IWorkloadActors actors, int count, TextWriter stderr)
    {
        if (result.StillInFlight > 0 || actors.Read(mode) is not { } read)
        {
            return null;
        }

        var liveness = await LivenessProbe.RunAsync(count, read, CancellationToken.None);
        await stderr.WriteLineAsync(FormattableString.Invariant(
            $"[{mode}] after the nemesis: {liveness.Actors - liveness.Failed:N0} of {liveness.Actors:N0} actors answered a read, the slowest in {liveness.SlowestMs:F1} ms{(liveness.FirstFailure is { } why ? $"; first failure: {why}" : "")}"));
        return liveness;
    }

    private sealed record ModeActors(IWorkloadActors Actors, IGrainFactory Grains, NemesisSettings? Nemesis, bool LetGoBetweenModes, Func<string?> Lost);

    // Attempts per commit, those retried inside RunAct and RunPact included, on whole-run totals as
    // the retry counts are (warm-up included): for ACTs always (act, act-elr, hybrid's act kind), for
    // PACTs when --pact-attempts lets them retry (pact, hybrid's pact kind). Not for TPC-C's hybrid
    // (its kinds are transaction types, not modes).
    // An ACT promoted to a PACT (--promote) after losing its race made one attempt more than its
    // caller saw: the ACT's, then its promoted runs (those after the first counted among the
    // retries); one promoted at once made none. Its kind also reports the commits that came promoted
    // and the reconnaissance runs, which are not attempts (none can commit).
    private static RunResult WithAttemptsPerCommit(RunResult result, string mode, LoadDriver driver, RetryListener retries, LoadGenOptions options)
    {
        var pactsRetry = options.PactAttempts > 1;
        var actAttempts = retries.RetriedActs + retries.Promotions - retries.PromotedAtOnce;
        if (mode is ModeNames.Act or ModeNames.ActElr || (mode is ModeNames.Pact && pactsRetry))
        {
            var retried = mode is ModeNames.Pact ? retries.RetriedPacts : actAttempts;
            var promoted = mode is ModeNames.Pact ? (long?)null : retries.PromotedCommits;
            return driver.Totals.Committed > 0 ? result with { AttemptsPerCommit = Per(driver.Totals, retried), Promoted = promoted, Reconnoitred = promoted is null ? null : retries.Reconnoitred } : result;
        }

        if (mode is ModeNames.Hybrid && result.Kinds is { } kinds && kinds.ContainsKey(ModeNames.Act))
        {
            var updated = new Dictionary<string, RunResult>(kinds, StringComparer.Ordinal);
            foreach (var (kind, retried) in new (string, long?)[] { (ModeNames.Act, actAttempts), (ModeNames.Pact, pactsRetry ? retries.RetriedPacts : null) })
            {
                if (retried is { } count && driver.KindTotals.TryGetValue(kind, out var totals) && totals.Committed > 0 && kinds.TryGetValue(kind, out var run))
                {
                    updated[kind] = run with { AttemptsPerCommit = Per(totals, count), Promoted = kind == ModeNames.Act ? retries.PromotedCommits : null, Reconnoitred = kind == ModeNames.Act ? retries.Reconnoitred : null };
                }
            }

            return result with { Kinds = updated };
        }

        return result;

        static double Per((long Committed, long Aborted) totals, long retried) => (double)(totals.Committed + totals.Aborted + retried) / totals.Committed;
    }

    private static async Task<RunResult> VerifyAsync(string mode, RunResult result, bool[] touched, SmallBankWorkload workload, LoadGenOptions options, TextWriter stderr)
    {
        if (result.StillInFlight > 0)
        {
            await stderr.WriteLineAsync($"[{mode}] verify skipped: transactions are still in flight, balances would be mid-transfer.");
            return result;
        }

        var keys = new List<int>();
        for (var key = 0; key < touched.Length; key++)
        {
            if (touched[key])
            {
                keys.Add(key);
            }
        }

        VerificationResult verification;
        try
        {
            verification = await workload.VerifyAsync(mode, keys, options.Clients * options.Pipeline, CancellationToken.None);
        }
#pragma warning disable CA1031 // A failed read is a failed verification, reported with its cause.
        catch (Exception e)
#pragma warning restore CA1031
        {
            await stderr.WriteLineAsync($"[{mode}] verify FAILED: could not read the balances: {e.Message}");
            return result;
        }

        await stderr.WriteLineAsync(verification.Ok
            ? FormattableString.Invariant($"[{mode}] verify ok: {verification.Accounts:N0} accounts hold {verification.Actual:N0}")
            : FormattableString.Invariant($"[{mode}] verify FAILED: {verification.Accounts:N0} accounts hold {verification.Actual:N0}, expected {verification.Expected:N0}, difference {verification.Difference:+#,0.##;-#,0.##}"));
        return result with { Verification = verification };
    }

    // Output files may name a folder that does not exist yet (README's examples write under artifacts/).
    private static void CreateParent(string path)
    {
        if (Path.GetDirectoryName(Path.GetFullPath(path)) is { Length: > 0 } folder)
        {
            Directory.CreateDirectory(folder);
        }
    }

    /// <summary>TPC-C's steps around each mode: load its database before, check it after.</summary>
    private sealed class TpcCHooks(TpcCWorkload workload, TextWriter stderr, CancellationToken cancellationToken)
    {
        /// <summary>Loads <paramref name="mode"/>'s database; false (reported) if that failed or was interrupted.</summary>
        public async Task<bool> LoadAsync(string mode)
        {
            try
            {
                var loaded = await workload.LoadAsync(mode, cancellationToken: cancellationToken);
                await stderr.WriteLineAsync(FormattableString.Invariant(
                    $"[{mode}] loaded {workload.Config.Warehouses} warehouse(s), {loaded.Actors:N0} actors, in {loaded.Elapsed.TotalSeconds:F2}s"));
                return true;
            }
            catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
            {
                await stderr.WriteLineAsync($"[{mode}] interrupted while loading.");
                return false;
            }
#pragma warning disable CA1031 // A failed load is a failed run, reported with its cause.
            catch (Exception e)
#pragma warning restore CA1031
            {
                await stderr.WriteLineAsync($"[{mode}] error: loading the TPC-C database failed: {e.Message}");
                return false;
            }
        }

        /// <summary>Checks conditions 1–4 on <paramref name="mode"/>'s database once the mode drained.</summary>
        public async Task<RunResult> VerifyAsync(string mode, RunResult result)
        {
            if (result.StillInFlight > 0)
            {
                await stderr.WriteLineAsync($"[{mode}] verify skipped: transactions are still in flight, the database is mid-transaction.");
                return result;
            }

            TpcCVerification verification;
            try
            {
                verification = TpcCVerification.From(await workload.VerifyAsync(mode, CancellationToken.None));
            }
#pragma warning disable CA1031 // A failed read is a failed verification, reported with its cause.
            catch (Exception e)
#pragma warning restore CA1031
            {
                await stderr.WriteLineAsync($"[{mode}] verify FAILED: could not read the database: {e.Message}");
                return result;
            }

            if (verification.Ok)
            {
                await stderr.WriteLineAsync(FormattableString.Invariant(
                    $"[{mode}] verify ok: TPC-C conditions 1-4 hold ({verification.Warehouses} warehouse(s), {verification.Districts} districts)"));
            }
            else
            {
                await stderr.WriteLineAsync($"[{mode}] verify FAILED: TPC-C condition(s) {verification.DescribeViolated()} violated:");
                foreach (var violation in verification.Violations.Take(20))
                {
                    await stderr.WriteLineAsync($"[{mode}]   {violation}");
                }

                if (verification.Violations.Count > 20)
                {
                    await stderr.WriteLineAsync(FormattableString.Invariant($"[{mode}]   ... and {verification.Violations.Count - 20} more"));
                }
            }

            return result with { Consistency = verification };
        }
    }
}
