using System.CommandLine;
using System.CommandLine.Parsing;
using System.Diagnostics;
using System.Globalization;
using System.Runtime;
using System.Text.Json;
using SmallBank;
using Snapper.Checkpointing;
using Snapper.Configuration;
using Snapper.LoadGen.Cluster;
using Snapper.LoadGen.Options;

namespace Snapper.LoadGen;

/// <summary>
/// <c>scale --actors N</c>: what a database of N written actors costs a silo on the file log (issue
/// 52's figures). It writes every account once with wide PACTs (<c>--width</c> accounts each), runs
/// a checkpoint round, then <c>--duration</c> seconds of SmallBank transfers over the N accounts and
/// a round after them; asks Orleans to collect every idle activation and weighs the heap; then stops
/// the silo and starts one on the same logs, timing how long it takes to serve and weighing it
/// again. A silo that never wrote an actor, started first, is the baseline each weight is set
/// against. Exit 0, 1 when a step fails, 2 for a bad command line.
/// </summary>
public static class ScaleCommand
{
    /// <summary>The subcommand's name.</summary>
    public const string Name = "scale";

    private const int MaxActors = 100_000_000;

    private static readonly Option<int> Actors = Bounded(new Option<int>("--actors")
    {
        Description = "Accounts written, each once, before the load (the database's size).",
        DefaultValueFactory = _ => 20_000,
        HelpName = "n",
    }, 2, MaxActors);

    private static readonly Option<int> Width = Bounded(new Option<int>("--width")
    {
        Description = "Accounts each writing PACT touches: one pays the others (SmallBank MultiTransfer).",
        DefaultValueFactory = _ => 100,
        HelpName = "n",
    }, 2, 1_000);

    private static readonly Option<int> Duration = Bounded(new Option<int>("--duration")
    {
        Description = "Seconds of load (4-account transfers over every account) between the two checkpoint rounds.",
        DefaultValueFactory = _ => 10,
        HelpName = "seconds",
    }, 1, 3_600);

    private static readonly Option<int> Pipeline = Bounded(new Option<int>("--pipeline")
    {
        Description = "Transactions kept in flight while writing and during the load.",
        DefaultValueFactory = _ => 64,
        HelpName = "n",
    }, 1, 10_000);

    private static readonly Option<DirectoryInfo?> LogDir = new("--log-dir")
    {
        Description = "An empty folder for the file log, kept afterwards (default: a temporary folder, deleted afterwards).",
        HelpName = "dir",
    };

    private static readonly Option<FileInfo?> Json = new("--json")
    {
        Description = "Also write the figures as JSON to this file.",
        HelpName = "file",
    };

    private static readonly Option<bool> Verbose = new("--verbose")
    {
        Description = "A failure prints the whole exception and the runtime's log lines, not one line.",
    };

    /// <summary>The subcommand and its flags.</summary>
    public static Command Definition() =>
        new(Name, "Write --actors accounts, load them, checkpoint, collect idle actors and restart the silo on the same file log: a checkpoint round's time and bytes, the silo's memory after idle collection and after the restart, and how long the restart takes to serve.")
        {
            Actors, Width, Duration, Pipeline, LogDir, Json, Verbose,
        };

    /// <summary>Runs a parsed <c>scale</c>; returns the exit code.</summary>
    public static async Task<int> RunAsync(ParseResult parsed, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        ArgumentNullException.ThrowIfNull(stdout);
        ArgumentNullException.ThrowIfNull(stderr);
        var (actors, width, seconds, pipeline) = (parsed.GetValue(Actors), parsed.GetValue(Width), parsed.GetValue(Duration), parsed.GetValue(Pipeline));
        var verbose = parsed.GetValue(Verbose);
        var given = parsed.GetValue(LogDir)?.FullName;
        if (given is not null && Directory.Exists(given) && Directory.EnumerateFileSystemEntries(given).Any())
        {
            await stderr.WriteLineAsync($"error: --log-dir {given}: the folder is not empty; scale writes a database of its own and needs an empty one.");
            return ExitCodes.Usage;
        }

        var directory = given ?? Path.Combine(Path.GetTempPath(), $"snapper-scale-{Environment.ProcessId}-{Guid.NewGuid():N}");
        Directory.CreateDirectory(directory);
        var silo = new LoadGenOptions { Logger = LoggerKind.File, LogDir = directory, CheckpointIntervalSeconds = 0, Verbose = verbose };
        try
        {
            var figures = await MeasureAsync(silo, actors, width, seconds, pipeline, stdout, stderr, cancellationToken);
            if (parsed.GetValue(Json) is { } json)
            {
                await File.WriteAllTextAsync(json.FullName, JsonSerializer.Serialize(figures, new JsonSerializerOptions { WriteIndented = true, PropertyNamingPolicy = JsonNamingPolicy.CamelCase }), cancellationToken);
            }

            return ExitCodes.Ok;
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            await stderr.WriteLineAsync("scale: stopped before it finished; no figures.");
            return ExitCodes.Failure;
        }
        catch (Exception e) when (!verbose && e is not OutOfMemoryException)
        {
            await stderr.WriteLineAsync($"error: scale: {e.GetType().Name}: {e.Message} (--verbose prints the whole exception)");
            return ExitCodes.Failure;
        }
        finally
        {
            if (given is null && Directory.Exists(directory))
            {
                Directory.Delete(directory, recursive: true);
            }
        }
    }

    private static async Task<ScaleFigures> MeasureAsync(LoadGenOptions silo, int actors, int width, int seconds, int pipeline, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        // The baseline: the same silo, on a log of its own, that never wrote an actor.
        Weight baseline;
        await using (var empty = await EmbeddedCluster.StartAsync(silo with { LogDir = null }, stderr, cancellationToken))
        {
            await Serve(empty, cancellationToken);
            baseline = await CollectIdle(empty, cancellationToken);
        }

        await Say(stdout, $"scale: a silo that never wrote an actor, after idle collection: {baseline}");

        Weight idle;
        Round afterWrite, afterLoad;
        double rate;
        await using (var cluster = await EmbeddedCluster.StartAsync(silo, stderr, cancellationToken))
        {
            var started = Stopwatch.GetTimestamp();
            await WriteEvery(cluster, actors, width, pipeline, cancellationToken);
            var wrote = Stopwatch.GetElapsedTime(started);
            await Say(stdout, $"scale: wrote {actors:N0} accounts with {(actors + width - 1) / width:N0} PACTs of up to {width} in {wrote.TotalSeconds:F1} s");
            afterWrite = await Checkpoint(cluster);
            await Say(stdout, $"scale: checkpoint after writing: {afterWrite}");

            var committed = await Load(cluster, actors, pipeline, TimeSpan.FromSeconds(seconds), cancellationToken);
            rate = committed / (double)seconds;
            await Say(stdout, $"scale: {seconds} s of load (4-account transfers over {actors:N0} accounts, {pipeline} in flight): {rate:N0} txn/s");
            afterLoad = await Checkpoint(cluster);
            await Say(stdout, $"scale: checkpoint after the load: {afterLoad}");

            idle = await CollectIdle(cluster, cancellationToken);
            await Say(stdout, $"scale: after idle collection: {idle}");
        }

        // What the process kept of the silos before (the runtime's and this program's own, not a
        // silo's): the restarted silo's heap is given beside it.
        var residue = Weigh(0);
        var restarting = Stopwatch.GetTimestamp();
        Weight restarted;
        TimeSpan serving;
        await using (var again = await EmbeddedCluster.StartAsync(silo, stderr, cancellationToken))
        {
            await Serve(again, cancellationToken);
            serving = Stopwatch.GetElapsedTime(restarting);
            restarted = Weigh(await ActivationCount(again));
        }

        await Say(stdout, $"scale: restarted on the same log: served in {serving.TotalSeconds:F1} s; {restarted} (the process held {residue.HeapMb:N0} MB before it started)");
        return new ScaleFigures(actors, width, seconds, pipeline, baseline, afterWrite, rate, afterLoad, idle, serving.TotalSeconds, restarted, residue);
    }

    // Every account once, `width` to a PACT: the first pays each of the others 1. Orleans is asked
    // every few seconds to collect the accounts written since, so a large database does not have to
    // fit in the silo's memory as activations while it is written.
    private static async Task WriteEvery(EmbeddedCluster cluster, int actors, int width, int pipeline, CancellationToken cancellationToken)
    {
        var next = 0;
        using var written = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        var collecting = CollectWhile(cluster, written.Token);
        await Task.WhenAll(Enumerable.Range(0, pipeline).Select(async _ =>
        {
            while (true)
            {
                var first = Interlocked.Add(ref next, width) - width;
                if (first >= actors)
                {
                    return;
                }

                var ids = Enumerable.Range(first, Math.Min(width, actors - first)).Select(k => ActorId.Create<IAccountActor>(k)).ToArray();
                await Transfer(cluster, ids, cancellationToken);
            }
        }));
        await written.CancelAsync();
        await collecting;
    }

    private static async Task CollectWhile(EmbeddedCluster cluster, CancellationToken running)
    {
        var period = TimeSpan.FromSeconds(5);
        var management = cluster.Grains.GetGrain<IManagementGrain>(0);
        try
        {
            while (true)
            {
                await Task.Delay(period, running);
                await management.ForceActivationCollection(period);
            }
        }
        catch (OperationCanceledException) when (running.IsCancellationRequested)
        {
            // The writing ended.
        }
    }

    private static async Task<long> Load(EmbeddedCluster cluster, int actors, int pipeline, TimeSpan duration, CancellationToken cancellationToken)
    {
        long committed = 0;
        using var window = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        window.CancelAfter(duration);
        await Task.WhenAll(Enumerable.Range(0, pipeline).Select(async worker =>
        {
            var random = new Random(worker);
            var keys = new HashSet<int>();
            while (!window.IsCancellationRequested)
            {
                keys.Clear();
                while (keys.Count < Math.Min(4, actors))
                {
                    keys.Add(random.Next(actors));
                }

                try
                {
                    await Transfer(cluster, [.. keys.Select(k => ActorId.Create<IAccountActor>(k))], cancellationToken);
                    Interlocked.Increment(ref committed);
                }
                catch (TransactionAbortedException)
                {
                    // An abort is part of a load (a payer out of money); counted by not counting it.
                }
            }
        }));
        return committed;
    }

    private static Task Transfer(EmbeddedCluster cluster, ActorId[] ids, CancellationToken cancellationToken)
    {
        var declared = AccessSet.Of(ids[0]);
        for (var i = 1; i < ids.Length; i++)
        {
            declared = declared.And(ids[i]);
        }

        var input = new MultiTransferInput(1m, ids[1..]);
        return cluster.Client.RunPact<IAccountActor>(ids[0], (payer, ctx) => payer.MultiTransfer(ctx, input), declared, cancellationToken);
    }

    // One PACT and one ACT answered: the silo serves.
    private static async Task Serve(EmbeddedCluster cluster, CancellationToken cancellationToken)
    {
        var (a, b) = (ActorId.Create<IAccountActor>(0), ActorId.Create<IAccountActor>(1));
        await cluster.Client.RunPact<IAccountActor>(a, (x, ctx) => x.Balance(ctx), AccessSet.Of(a), cancellationToken);
        await cluster.Client.RunAct<IAccountActor, decimal>(b, (x, ctx) => x.Balance(ctx), cancellationToken);
    }

    private static async Task<Round> Checkpoint(EmbeddedCluster cluster)
    {
        var started = Stopwatch.GetTimestamp();
        var report = await cluster.Grains.GetGrain<ICheckpointer>(0).Run();
        return new Round(Stopwatch.GetElapsedTime(started).TotalSeconds, report.RecordsRead, report.States, report.Bytes, report.Settling, report.Writing);
    }

    // Orleans is asked every second to deactivate every idle activation; an actor that took part in
    // a transaction lets itself be collected only once its hold timer (a quarter of the transaction
    // timeout) has seen nothing undecided there. The weight is taken once a hold period has passed
    // and the count has not fallen for Settled seconds (at most CollectionLimit seconds).
    private static async Task<Weight> CollectIdle(EmbeddedCluster cluster, CancellationToken cancellationToken)
    {
        const int Settled = 3, CollectionLimit = 120;
        var holds = (int)Math.Ceiling(SnapperOptions.DefaultTransactionTimeout.TotalSeconds / 4) + 1;
        var management = cluster.Grains.GetGrain<IManagementGrain>(0);
        var (count, still) = (int.MaxValue, 0);
        for (var waited = 1; waited <= CollectionLimit && (waited <= holds || still < Settled); waited++)
        {
            await management.ForceActivationCollection(TimeSpan.Zero);
            await Task.Delay(TimeSpan.FromSeconds(1), cancellationToken);
            var now = await ActivationCount(cluster);
            (count, still) = now < count ? (now, 0) : (count, still + 1);
        }

        return Weigh(count);
    }

    private static Task<int> ActivationCount(EmbeddedCluster cluster) => cluster.Grains.GetGrain<IManagementGrain>(0).GetTotalActivationCount();

    // The managed heap after a full, compacting collection: what the silo holds. The process's
    // resident set is printed beside it, but it keeps pages a heap gave back, so it is not compared.
    private static Weight Weigh(int activations)
    {
        GCSettings.LargeObjectHeapCompactionMode = GCLargeObjectHeapCompactionMode.CompactOnce;
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        GC.WaitForPendingFinalizers();
        var heap = GC.GetTotalMemory(forceFullCollection: true);
        using var process = Process.GetCurrentProcess();
        return new Weight(heap / 1_048_576.0, process.WorkingSet64 / 1_048_576.0, activations);
    }

    private static Task Say(TextWriter stdout, FormattableString line) => stdout.WriteLineAsync(line.ToString(CultureInfo.InvariantCulture));

    private static Option<int> Bounded(Option<int> option, int min, int max)
    {
        option.Validators.Add(result =>
        {
            var value = result.GetValueOrDefault<int>();
            if (value < min || value > max)
            {
                result.AddError(string.Create(CultureInfo.InvariantCulture, $"{option.Name} must be from {min:N0} to {max:N0} (was {value})."));
            }
        });
        return option;
    }

    /// <summary>A silo's weight: managed heap after a full collection, resident set, activations (MB, MB, count).</summary>
    public sealed record Weight(double HeapMb, double ResidentMb, int Activations)
    {
        /// <inheritdoc />
        public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"managed heap {HeapMb:N0} MB, resident {ResidentMb:N0} MB, {Activations:N0} activations");
    }

    /// <summary>A checkpoint round: its time and how much of it its settle and write steps took, the log records it read, the states and bytes it wrote.</summary>
    public sealed record Round(double Seconds, long RecordsRead, long States, long Bytes, double SettleSeconds, double WriteSeconds)
    {
        /// <inheritdoc />
        public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Seconds:F2} s (settling {SettleSeconds:F2} s, writing {WriteSeconds:F2} s), read {RecordsRead:N0} records, wrote {States:N0} states in {Bytes / 1_048_576.0:N1} MB");
    }

    /// <summary>The figures of one <c>scale</c> run (its JSON).</summary>
    public sealed record ScaleFigures(int Actors, int Width, int LoadSeconds, int Pipeline, Weight NeverWritten, Round CheckpointAfterWrite, double LoadThroughput, Round CheckpointAfterLoad, Weight AfterIdleCollection, double RestartServedSeconds, Weight AfterRestart, Weight BeforeRestart);
}
