using System.Diagnostics;
using Snapper.LoadGen.Options;
using Snapper.LoadGen.Workloads;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Drives one mode: clients × pipeline async loops, each issuing one transaction at a time, for
/// the warm-up plus the duration; then stops issuing and waits for the transactions in flight.
/// </summary>
public sealed class LoadDriver
{
    /// <summary>
    /// How long to wait for in-flight transactions after issuing stops. Longer than the runtime's
    /// default transaction timeout (30 s), which bounds every lock wait, so only a hung runtime
    /// hits it.
    /// </summary>
    public static readonly TimeSpan DrainTimeout = TimeSpan.FromSeconds(45);

    /// <summary>
    /// <see cref="DrainTimeout"/>, or for a <c>--cluster</c> client a little longer than its
    /// response timeout if that is longer: an answer lost with a gateway that went (a silo stopped
    /// while the request was in it) ends the call only then, as an unknown outcome, and that is
    /// no hung runtime.
    /// </summary>
    public static TimeSpan DrainLimit(LoadGenOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return options.Cluster is null ? DrainTimeout : TimeSpan.FromSeconds(Math.Max(DrainTimeout.TotalSeconds, options.ResponseTimeoutSeconds + 5));
    }

    /// <summary>
    /// Seconds in which none committed and attempts failed (<see cref="AbortReason.Failure"/> or an
    /// error), more of them than aborted otherwise (with a nemesis: every attempt failed), after
    /// which the mode stops: a broken log or silo does not heal by waiting out the duration, and
    /// each attempt would only add a failure.
    /// </summary>
    public const int FailingSecondsToStop = 3;

    private readonly LoadGenOptions options;
    private readonly ActorPicker picker;
    private string? firstFailure;

    /// <summary>A driver for the load <paramref name="options"/> describe, choosing actors with <paramref name="picker"/>.</summary>
    public LoadDriver(LoadGenOptions options, ActorPicker picker)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(picker);
        this.options = options;
        this.picker = picker;
    }

    /// <summary>Called once per second with the running recorder (progress).</summary>
    public Action<RunRecorder>? OnTick { get; init; }

    /// <summary>Transactions committed and aborted over the whole last run, warm-up and drain included.</summary>
    public (long Committed, long Aborted) Totals { get; private set; }

    /// <summary>The same as <see cref="Totals"/> for each kind of a mix of more than one (hybrid: pact, act), by kind name.</summary>
    public IReadOnlyDictionary<string, (long Committed, long Aborted)> KindTotals { get; private set; } = new Dictionary<string, (long, long)>();

    /// <summary>Why the mode stopped early because every attempt failed (see <see cref="FailingSecondsToStop"/>), or null.</summary>
    public string? StoppedByFailures { get; private set; }

    /// <summary>
    /// Asked once a second: null while the cluster can be reached, else which gateways went
    /// (<see cref="Cluster.ILoadGenCluster.Lost"/>). Gone for <see cref="FailingSecondsToStop"/>
    /// seconds, the mode stops: its transactions hang until the response timeout instead of failing.
    /// </summary>
    public Func<string?>? ClusterLost { get; init; }

    /// <summary>Told of every transaction that did not commit, with what it ended with (who was in the way: <see cref="AbortBlockers"/>).</summary>
    public Action<Exception>? OnAbort { get; init; }

    /// <summary>The mode stopped because the cluster went (<see cref="ClusterLost"/>): the transactions in flight will not be answered.</summary>
    public bool ClusterWent { get; private set; }

    /// <summary>The first failure that was not an abort (a lost answer, a runtime error), if any: what "Error" counts.</summary>
    public string? FirstFailure => Volatile.Read(ref firstFailure);

    /// <summary>
    /// Asked once a second whether the JIT compiled a lot in the last second (the warm-up is then
    /// extended, see <see cref="LoadGenOptions.JitSettleSeconds"/>); null: a <see cref="JitSettling"/>.
    /// </summary>
    public Func<bool>? JitProbe { get; init; }

    /// <summary>Written with every key a transaction was issued on (for <c>--verify</c>); null to skip.</summary>
    public bool[]? Touched { get; init; }

    /// <summary>
    /// Started with the load and given its window; the token is cancelled once measuring ended,
    /// and it is awaited after the drain (the nemesis: <see cref="Nemesis.NemesisLoop.RunAsync"/>).
    /// Null: nothing runs beside the load.
    /// </summary>
    public Func<MeasurementWindow, CancellationToken, Task>? DuringWindow { get; init; }

    /// <summary>The window of the last <see cref="RunAsync"/>, once it has started.</summary>
    public MeasurementWindow? Window { get; private set; }

    /// <summary>
    /// Runs <paramref name="issue"/> under load. Cancelling <paramref name="cancellationToken"/>
    /// ends the window at once; the in-flight transactions are still awaited.
    /// </summary>
    public Task<RunResult> RunAsync(string mode, IssueTransaction issue, CancellationToken cancellationToken) =>
        RunAsync(mode, TransactionMix.Single(mode, issue), cancellationToken);

    /// <summary>
    /// Runs <paramref name="mix"/> under load; with more than one kind, each kind is also reported
    /// on its own (<see cref="RunResult.Kinds"/>); with variants, each variant too
    /// (<see cref="RunResult.Variants"/>), and each kind by variant.
    /// </summary>
    public async Task<RunResult> RunAsync(string mode, TransactionMix mix, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(mix);
        var window = new MeasurementWindow(TimeSpan.FromSeconds(options.WarmupSeconds), TimeSpan.FromSeconds(options.DurationSeconds));
        Window = window;
        var recorder = new RunRecorder(mode, window, options.DurationSeconds);
        var kindRecorders = mix.Kinds.Select(k => new RunRecorder(k.Name, window, options.DurationSeconds)).ToArray();
        var variantRecorders = mix.Variants.Select(v => new RunRecorder(v.Name, window, options.DurationSeconds)).ToArray();

        // One recorder per kind and variant (the kind's own without variants); each loop records
        // a transaction in its cell only, and kinds, variants and the mode adopt the cells.
        var variants = Math.Max(1, variantRecorders.Length);
        var cells = new RunRecorder[kindRecorders.Length, variants];
        for (var kind = 0; kind < kindRecorders.Length; kind++)
        {
            for (var variant = 0; variant < variants; variant++)
            {
                cells[kind, variant] = variantRecorders.Length == 0
                    ? kindRecorders[kind]
                    : new RunRecorder(variantRecorders[variant].Mode, window, options.DurationSeconds);
            }
        }

        var loops = new List<Task>(options.Clients * options.Pipeline);
        for (var client = 0; client < options.Clients; client++)
        {
            for (var slot = 0; slot < options.Pipeline; slot++)
            {
                // Same seed, client and slot → same Random → same actor sequence in every mode.
                var random = new Random(LoopSeed(options.Seed, client, slot));
                var perCell = new LoopRecorder[kindRecorders.Length * variants];
                for (var kind = 0; kind < kindRecorders.Length; kind++)
                {
                    for (var variant = 0; variant < variants; variant++)
                    {
                        var loop = perCell[(kind * variants) + variant] = cells[kind, variant].AddLoop();
                        recorder.Adopt(loop);
                        if (variantRecorders.Length > 0)
                        {
                            kindRecorders[kind].Adopt(loop);
                            variantRecorders[variant].Adopt(loop);
                        }
                    }
                }

                loops.Add(Task.Run(() => LoopAsync(mix, random, perCell, variants, window), CancellationToken.None));
            }
        }

        using var windowOver = new CancellationTokenSource();
        var during = DuringWindow is { } beside ? Task.Run(() => beside(window, windowOver.Token), CancellationToken.None) : Task.CompletedTask;
        await using (cancellationToken.Register(window.Interrupt))
        {
            await TickUntilEndAsync(recorder, window, cancellationToken);
            window.StopAtPlannedEnd();
        }

        await windowOver.CancelAsync(); // the faults stop now; the requests still out are awaited after the drain

        var stillInFlight = 0L;
        var drainStarted = Stopwatch.GetTimestamp();
        var all = Task.WhenAll(loops);
        try
        {
            // A cluster that went answers nothing: its calls end at the response timeout, not in a drain.
            await all.WaitAsync(ClusterWent ? TimeSpan.FromSeconds(1) : DrainLimit(options), CancellationToken.None);
        }
        catch (TimeoutException)
        {
            stillInFlight = loops.Count(l => !l.IsCompleted);
        }

        var drainSeconds = Stopwatch.GetElapsedTime(drainStarted).TotalSeconds;
        await during;
        Totals = (recorder.TotalCommitted, recorder.TotalAborted);
        KindTotals = kindRecorders.Length > 1
            ? kindRecorders.ToDictionary(k => k.Mode, k => (k.TotalCommitted, k.TotalAborted), StringComparer.Ordinal)
            : new Dictionary<string, (long, long)>();
        var result = recorder.Merge(stillInFlight, drainSeconds) with { WarmupSeconds = window.WarmupSeconds, Gc = Gc, Cpu = Cpu };
        if (kindRecorders.Length > 1)
        {
            var kinds = new Dictionary<string, RunResult>(StringComparer.Ordinal);
            for (var kind = 0; kind < kindRecorders.Length; kind++)
            {
                var merged = kindRecorders[kind].Merge(stillInFlight, drainSeconds);
                if (variantRecorders.Length > 0)
                {
                    var byVariant = new Dictionary<string, RunResult>(StringComparer.Ordinal);
                    for (var variant = 0; variant < variants; variant++)
                    {
                        byVariant[variantRecorders[variant].Mode] = cells[kind, variant].Merge(stillInFlight, drainSeconds);
                    }

                    merged = merged with { Variants = byVariant };
                }

                kinds[kindRecorders[kind].Mode] = merged;
            }

            result = result with { Kinds = kinds };
        }

        if (variantRecorders.Length > 0)
        {
            result = result with { Variants = variantRecorders.ToDictionary(v => v.Mode, v => v.Merge(stillInFlight, drainSeconds), StringComparer.Ordinal) };
        }

        return result;
    }

    /// <summary>The last run's garbage collections while it was measured, or null if it measured nothing.</summary>
    public GcSummary? Gc { get; private set; }

    /// <summary>The last run's CPU while it was measured, or null if it measured nothing.</summary>
    public CpuSummary? Cpu { get; private set; }

    private static async Task<GcSummary.Sample> GcSampleAt(long timestamp)
    {
        var wait = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), timestamp);
        if (wait > TimeSpan.Zero)
        {
            await Task.Delay(wait).ConfigureAwait(false);
        }

        return GcSummary.Sample.Take();
    }

    // Completes at the window's planned end, or cancelled at once on Ctrl+C.
    private static Task EndOf(MeasurementWindow window, CancellationToken cancellationToken)
    {
        var left = Stopwatch.GetElapsedTime(Stopwatch.GetTimestamp(), window.PlannedEnd);
        return left > TimeSpan.Zero ? Task.Delay(left, cancellationToken) : Task.CompletedTask;
    }

    /// <summary>The seed of one loop, mixed (SplitMix64) so neighbouring loops get unrelated sequences.</summary>
    public static int LoopSeed(int seed, int client, int slot)
    {
        unchecked
        {
            var z = ((ulong)(uint)seed << 32) ^ ((ulong)(uint)client << 20) ^ (uint)slot;
            z += 0x9E3779B97F4A7C15UL;
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
            return (int)(z ^ (z >> 31));
        }
    }

    private async Task TickUntilEndAsync(RunRecorder recorder, MeasurementWindow window, CancellationToken cancellationToken)
    {
        if (Stopwatch.GetTimestamp() >= window.PlannedEnd)
        {
            return;
        }

        var end = EndOf(window, cancellationToken);
        using var ticks = new PeriodicTimer(TimeSpan.FromSeconds(1));
        var stillCompiling = JitProbe ?? new JitSettling().StillCompiling;
        var extended = 0;
        Task<GcSummary.Sample>? measuringFrom = null; // taken when measuring starts
        var (committed, otherAborts, failed, failingSeconds, lostSeconds) = (0L, 0L, 0L, 0, 0);
        while (true)
        {
            var tick = ticks.WaitForNextTickAsync(CancellationToken.None).AsTask();
            if (await Task.WhenAny(tick, end).ConfigureAwait(false) != tick)
            {
                OnTick?.Invoke(recorder); // the last, at the end of the window
                (Gc, Cpu) = (null, null);
                if (measuringFrom is { IsCompletedSuccessfully: true })
                {
                    var measuredTo = GcSummary.Sample.Take();
                    (Gc, Cpu) = (GcSummary.Between(measuringFrom.Result, measuredTo), CpuSummary.Between(measuringFrom.Result, measuredTo));
                }

                return;
            }

            // The last tick before measuring: while the JIT still compiles, the warm-up goes on a
            // second. Ticks come a second apart, so one lands between 1 and 2 s before the start,
            // and it may come up to 0.8 s late (a starved thread pool) and still give the window
            // the notice it needs to move.
            var now = Stopwatch.GetTimestamp();
            var compiling = stillCompiling();
            var toStart = (window.Start - now) / (double)Stopwatch.Frequency;
            if (toStart is > 0 and <= 2.0)
            {
                if (compiling && extended < options.JitSettleSeconds && options.WarmupSeconds > 0
                    && window.TryPostpone(TimeSpan.FromSeconds(1), notice: TimeSpan.FromSeconds(0.2)))
                {
                    extended++;
                    end = EndOf(window, cancellationToken);
                    measuringFrom = null;
                }
                else
                {
                    measuringFrom ??= GcSampleAt(window.Start);
                }
            }
            else if (toStart <= 0)
            {
                measuringFrom ??= Task.FromResult(GcSummary.Sample.Take());
            }

            OnTick?.Invoke(recorder);
            // Three monotonic counters, each compared with itself a second ago: "nothing but failures"
            // holds however the loops interleave with these reads.
            // A log that stopped after a failed write (a full disk) fails every transaction that
            // reaches it, and PACTs behind them abort by cascade, ACTs meanwhile by wait-die: without
            // a nemesis, failures outnumbering the other aborts are enough. A nemesis fails
            // transactions on purpose: there, only nothing but failures is.
            var (nowCommitted, nowOtherAborts, nowFailed) = (recorder.TotalCommitted, recorder.TotalOtherAborts, recorder.TotalFailed);
            var failing = nowCommitted == committed && nowFailed > failed
                && (options.Nemesis.Count == 0 ? nowFailed - failed > nowOtherAborts - otherAborts : nowOtherAborts == otherAborts);
            (committed, otherAborts, failed) = (nowCommitted, nowOtherAborts, nowFailed);
            failingSeconds = failing ? failingSeconds + 1 : 0;
            var lost = ClusterLost?.Invoke();
            lostSeconds = lost is null ? 0 : lostSeconds + 1;
            if (lostSeconds >= FailingSecondsToStop)
            {
                StoppedByFailures = $"{lost} {FailingSecondsToStop} s ago ({nowCommitted:N0} committed before)";
                ClusterWent = true;
                window.Interrupt();
                return;
            }

            if (failingSeconds >= FailingSecondsToStop)
            {
                StoppedByFailures = $"no transaction committed for {FailingSecondsToStop} s while they failed ({nowFailed:N0} failures); first failure: {Volatile.Read(ref firstFailure) ?? "(none recorded)"}";
                window.Interrupt();
                return;
            }
        }
    }

    private async Task LoopAsync(TransactionMix mix, Random random, LoopRecorder[] recorders, int variants, MeasurementWindow window)
    {
        var touched = Touched;
        while (!window.StopIssuing)
        {
            // Drawn before the keys, so a single-kind mode uses the Random exactly as it always did
            // (a mix without variants draws no variant).
            var kind = mix.Pick(random);
            var variant = mix.PickVariant(random);
            var issue = mix.IssueOf(kind, variant);
            var keys = new int[picker.TransactionSize];
            picker.Pick(random, keys);
            if (touched is not null)
            {
                foreach (var key in keys)
                {
                    touched[key] = true; // racy writes of the same value: harmless
                }
            }

            var started = Stopwatch.GetTimestamp();
            int abortSlot;
            try
            {
                var transaction = issue(keys);
                if (transaction.IsCompleted)
                {
                    // Finished without waiting (refused at once, say): let the ticks and the other loops in.
                    await Task.Yield();
                }

                await transaction.ConfigureAwait(false);
                abortSlot = -1;
            }
#pragma warning disable CA1031 // Any exception ends this transaction, counted by kind; none crashes the load generator.
            catch (Exception e)
#pragma warning restore CA1031
            {
                abortSlot = AbortSlots.Of(e);
                OnAbort?.Invoke(e);
                if (AbortSlots.IsFailure(abortSlot))
                {
                    Interlocked.CompareExchange(ref firstFailure, e is TransactionAbortedException ? e.Message : $"{e.GetType().Name}: {e.Message}", null);
                }
            }

            recorders[(kind * variants) + variant].Record(started, abortSlot);
        }
    }
}
