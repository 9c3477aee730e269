using System.Diagnostics;
using Orleans.Core.Internal;
using Snapper.LoadGen.Measurement;

namespace Snapper.LoadGen.Nemesis;

/// <summary>
/// The nemesis of one mode: from the moment measuring starts to the moment it ends (nothing during
/// the warm-up, the drain, a verify or a dump) it switches the call-level faults on and asks Orleans,
/// <see cref="NemesisSettings.Rate"/> times a second, to deactivate or migrate a random actor of
/// the workload (alternating when both are asked for), through Orleans' own grain management
/// extension, as an operator's rebalancing would. Requests are not awaited in the loop: each gets
/// <see cref="RequestPatience"/>, and one that fails or does not answer in time is counted, never
/// waited on.
/// </summary>
public sealed class NemesisLoop
{
    /// <summary>How long a deactivation or migration request may go unanswered before it counts as failed.</summary>
    public static readonly TimeSpan RequestPatience = TimeSpan.FromSeconds(5);

    private readonly NemesisSettings settings;
    private readonly IReadOnlyList<IAddressable> actors;
    private readonly Random random;
    private readonly List<Task> pending = [];
    private long deactivations, deactivationsFailed, migrations, migrationsFailed;
    private string? firstFailure;

    /// <summary>The nemesis of a mode whose workload drives <paramref name="actors"/>.</summary>
    public NemesisLoop(NemesisSettings settings, IReadOnlyList<IAddressable> actors)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(actors);
        this.settings = settings;
        this.actors = actors;
        random = new Random(settings.Seed);
        settings.Calls?.Reset();
    }

    /// <summary>
    /// Waits for <paramref name="window"/>'s start (it moves while the JIT settles), then acts until
    /// its end or until <paramref name="windowOver"/> is cancelled; returns once every request it
    /// made was answered or given up on. Never throws for a fault's sake.
    /// </summary>
    public async Task RunAsync(MeasurementWindow window, CancellationToken windowOver)
    {
        ArgumentNullException.ThrowIfNull(window);
        try
        {
            // One reading per turn: a second one may already lie past the start (a negative delay).
            for (var now = Stopwatch.GetTimestamp(); now < window.Start; now = Stopwatch.GetTimestamp())
            {
                var toStart = Stopwatch.GetElapsedTime(now, window.Start);
                await Task.Delay(toStart < TimeSpan.FromMilliseconds(50) ? toStart : TimeSpan.FromMilliseconds(50), windowOver);
            }

            settings.Calls?.Start();
            if (settings.Requests.Count > 0 && actors.Count > 0)
            {
                await RequestUntilEndAsync(window, windowOver);
            }
            else
            {
                await Task.Delay(Timeout.InfiniteTimeSpan, windowOver);
            }
        }
        catch (OperationCanceledException) when (windowOver.IsCancellationRequested)
        {
            // The window is over.
        }
        finally
        {
            settings.Calls?.Stop();
        }

        // Each request has its own bound, so this ends within RequestPatience.
        await Task.WhenAll(pending);
    }

    /// <summary>What this nemesis did, with what the call filters counted.</summary>
    public NemesisSummary Summary(LivenessSummary? liveness)
    {
        var calls = settings.Calls?.Counts ?? default;
        return new NemesisSummary
        {
            Faults = settings.Faults,
            Rate = settings.Rate,
            Actors = actors.Count,
            Deactivations = Interlocked.Read(ref deactivations),
            DeactivationsFailed = Interlocked.Read(ref deactivationsFailed),
            Migrations = Interlocked.Read(ref migrations),
            MigrationsFailed = Interlocked.Read(ref migrationsFailed),
            DelayedCalls = calls.Delayed,
            LateAnswers = calls.HeldLate,
            TimedOutCalls = calls.TimedOut,
            FirstRequestFailure = Volatile.Read(ref firstFailure),
            ResponseTimeoutSeconds = settings.Calls is { Late: true } ? CallFaults.ResponseTimeout.TotalSeconds : null,
            Liveness = liveness,
        };
    }

    private async Task RequestUntilEndAsync(MeasurementWindow window, CancellationToken windowOver)
    {
        var interval = Stopwatch.Frequency / settings.Rate;
        var started = Stopwatch.GetTimestamp();
        for (long n = 0; ; n++)
        {
            // Due times from the start, so a late wake-up catches up instead of lowering the rate.
            var due = started + (long)(n * interval);
            var now = Stopwatch.GetTimestamp();
            if (due >= window.End || now >= window.End)
            {
                return;
            }

            if (due > now)
            {
                await Task.Delay(Stopwatch.GetElapsedTime(now, due), windowOver);
            }

            var actor = actors[random.Next(actors.Count)];
            var request = settings.Requests[(int)(n % settings.Requests.Count)];
            pending.Add(RequestAsync(actor, request == NemesisFaults.Deactivate));
            if (pending.Count >= 256)
            {
                pending.RemoveAll(t => t.IsCompleted);
            }
        }
    }

    private async Task RequestAsync(IAddressable actor, bool deactivate)
    {
        Interlocked.Increment(ref deactivate ? ref deactivations : ref migrations);
        try
        {
            var management = actor.AsReference<IGrainManagementExtension>();
            await (deactivate ? management.DeactivateOnIdle() : management.MigrateOnIdle()).AsTask().WaitAsync(RequestPatience);
        }
#pragma warning disable CA1031 // A failed or unanswered request is counted; the nemesis goes on.
        catch (Exception e)
#pragma warning restore CA1031
        {
            Interlocked.Increment(ref deactivate ? ref deactivationsFailed : ref migrationsFailed);
            var what = e is TimeoutException ? "no answer in time" : $"{e.GetType().Name}: {e.Message.Split('\n')[0]}";
            Interlocked.CompareExchange(ref firstFailure, $"{(deactivate ? "DeactivateOnIdle" : "MigrateOnIdle")} on {actor.GetGrainId()}: {what}", null);
        }
    }
}
