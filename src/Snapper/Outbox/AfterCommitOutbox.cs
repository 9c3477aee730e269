using System.Collections.Concurrent;
using System.Collections.Immutable;
using System.Threading.Channels;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Configuration;
using Snapper.Diagnostics;
using Snapper.Logging;

namespace Snapper.Outbox;

/// <summary>
/// A silo's outbox: delivers the after-commit actions of the transactions this silo decided, once
/// each decision is final, and those its logs still owe when it starts
/// (docs/architecture.md, "After-commit actions").
/// </summary>
/// <remarks>
/// <para>Deciders hand actions over without waiting (a queue); a few workers on the thread pool, never
/// a grain's scheduler, hand each to its handler. A handler that completes at once costs no task of
/// its own; one that awaits goes on beside the others (at most <see cref="MaxInFlight"/> at a time),
/// bounded by <see cref="SnapperOptions.AfterCommitAttemptTimeout"/>. A failed attempt is tried again
/// after a doubling backoff (100 ms up to <see cref="SnapperOptions.AfterCommitMaxBackoff"/>), off the
/// queue, so a failing handler holds up nothing but its own actions.</para>
/// <para>Once taken, an action is noted in the log (<see cref="DeliveredRecord"/>, many per record,
/// not waited for): what a crash keeps from being noted is delivered again, at least once. Actions
/// owed at start wait for the silo to be active, since a handler may call grains. When the silo
/// stops, the workers stop and the rest stays owed in the log.</para>
/// </remarks>
internal sealed class AfterCommitOutbox : ILifecycleParticipant<ISiloLifecycle>, IDisposable
{
    /// <summary>Handler attempts that await, under way at once; more wait for one to end.</summary>
    internal const int MaxInFlight = 1024;

    private static readonly TimeSpan FirstBackoff = TimeSpan.FromMilliseconds(100);

    private readonly AfterCommitHandlers handlers;
    private readonly LogWriterPool loggers;
    private readonly SnapperMetrics metrics;
    private readonly TimeProvider clock;
    private readonly SnapperOptions settings;
    private readonly ILogger diagnostics;
    private readonly CancellationTokenSource stopping = new();
    private readonly Channel<(AfterCommitAction Action, int Attempt)> queue = Channel.CreateUnbounded<(AfterCommitAction, int)>(new UnboundedChannelOptions { AllowSynchronousContinuations = false });
    private readonly SemaphoreSlim inFlight = new(MaxInFlight, MaxInFlight);
    private readonly ConcurrentQueue<AfterCommitId> delivered = new();
    private int marking; // 1 while a DeliveredRecord is being appended

    public AfterCommitOutbox(AfterCommitHandlers handlers, LogWriterPool loggers, SnapperMetrics metrics, TimeProvider clock, IOptions<SnapperOptions> options, ILoggerFactory loggerFactory)
    {
        this.handlers = handlers;
        this.loggers = loggers;
        this.metrics = metrics;
        this.clock = clock;
        settings = options.Value;
        diagnostics = loggerFactory.CreateLogger("Snapper.Outbox");
    }

    /// <summary>Starts delivering once the silo is active; stops (the rest stays owed) when it stops.</summary>
    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(AfterCommitOutbox), ServiceLifecycleStage.Active, started =>
        {
            for (var i = 0; i < Math.Max(2, Environment.ProcessorCount); i++)
            {
                _ = Task.Run(Work, CancellationToken.None);
            }

            return Task.CompletedTask;
        }, stopped =>
        {
            stopping.Cancel();
            return Task.CompletedTask;
        });

    /// <summary>
    /// The transaction that registered <paramref name="actions"/> has committed, and its decision
    /// is final (or nothing is logged): they are delivered from now on.
    /// </summary>
    public void Deliver(IEnumerable<AfterCommitAction> actions)
    {
        foreach (var action in actions)
        {
            metrics.AfterCommitOwed(1);
            queue.Writer.TryWrite((action, 1)); // unbounded: never refused
        }
    }

    private async Task Work()
    {
        try
        {
            var reader = queue.Reader;
            while (await reader.WaitToReadAsync(stopping.Token))
            {
                while (reader.TryRead(out var next))
                {
                    var attempt = Attempt(next.Action, next.Attempt); // catches what the handler throws
                    if (!attempt.IsCompleted)
                    {
                        await inFlight.WaitAsync(stopping.Token);
                        _ = Release(attempt);
                    }
                }
            }
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
            // The silo stops: what is queued stays owed in the log.
        }
    }

    private async Task Release(Task attempt)
    {
        try
        {
            await attempt;
        }
        finally
        {
            inFlight.Release();
        }
    }

    // One attempt; a failed one is queued again after a backoff. Completes at once when the handler
    // did, else once the handler has ended (an attempt past its timeout is tried again beside it,
    // but keeps its place among the MaxInFlight until it ends, so a hung handler cannot pile up more).
    private Task Attempt(AfterCommitAction action, int attempt)
    {
        Task handling;
        string type = "(undecodable)";
        try
        {
            var (message, dispatch) = handlers.Prepare(action);
            type = message.GetType().Name;
            handling = dispatch(message, new AfterCommitContext(action.Id.ToString(), action.Tid, action.Actor, attempt), stopping.Token)
                ?? Task.FromException(new InvalidOperationException($"the {type} handler returned no task"));
        }
        catch (Exception e)
        {
            handling = Task.FromException(e);
        }

        if (handling.IsCompletedSuccessfully)
        {
            Taken(action, type);
            return Task.CompletedTask;
        }

        return Finish(action, attempt, type, handling);
    }

    private async Task Finish(AfterCommitAction action, int attempt, string type, Task handling)
    {
        try
        {
            await handling.WaitAsync(settings.AfterCommitAttemptTimeout, clock, stopping.Token);
            Taken(action, type);
            return;
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
            Ended(); // still owed in the log: the next start delivers it
            return;
        }
        catch (Exception e)
        {
            var failure = e is TimeoutException && !handling.IsCompleted
                ? new TimeoutException($"the handler ran past AfterCommitAttemptTimeout ({settings.AfterCommitAttemptTimeout}); tried again beside it", e)
                : e;
            var backoff = Backoff(attempt);
            metrics.AfterCommitAttempt(delivered: false, type);
            LogMessages.AfterCommitFailed(diagnostics, failure, action.Id.ToString(), type, attempt, backoff);
            _ = Retry(action, attempt + 1, backoff);
        }

        try
        {
            await handling; // a timed-out attempt keeps its place until it ends
        }
        catch (Exception)
        {
            // Counted and logged above.
        }
    }

    // Queued again after the backoff: a retry goes through the same bound as a first attempt.
    private async Task Retry(AfterCommitAction action, int attempt, TimeSpan backoff)
    {
        try
        {
            await Task.Delay(backoff, clock, stopping.Token);
            queue.Writer.TryWrite((action, attempt));
        }
        catch (OperationCanceledException)
        {
            Ended();
        }
    }

    private void Taken(AfterCommitAction action, string type)
    {
        metrics.AfterCommitAttempt(delivered: true, type);
        Ended();
        if (loggers.Enabled)
        {
            delivered.Enqueue(action.Id);
            if (Interlocked.CompareExchange(ref marking, 1, 0) == 0)
            {
                _ = Mark();
            }
        }
    }

    private void Ended()
    {
        metrics.AfterCommitOwed(-1);
    }

    // 100 ms, doubling up to the maximum, each within ±20% so that actions failing together do not
    // come back together.
    private TimeSpan Backoff(int attempt)
    {
        var doubled = FirstBackoff.TotalMilliseconds * Math.Pow(2, Math.Min(attempt - 1, 30));
        var capped = Math.Min(doubled, settings.AfterCommitMaxBackoff.TotalMilliseconds);
        return TimeSpan.FromMilliseconds(capped * (0.8 + (0.4 * Random.Shared.NextDouble())));
    }

    // Notes delivered actions in the log, as many per record as have gathered while the last one
    // was appended.
    private async Task Mark()
    {
        while (true)
        {
            var ids = ImmutableArray.CreateBuilder<AfterCommitId>();
            var highest = 0L;
            while (ids.Count < 4096 && delivered.TryDequeue(out var id))
            {
                ids.Add(id);
                highest = Math.Max(highest, id.Tid);
            }

            if (ids.Count > 0)
            {
                try
                {
                    var logger = loggers.All[(int)(highest % loggers.All.Count)];
                    await logger.Append(new DeliveredRecord(highest, ids.ToImmutable()));
                }
                catch (Exception e)
                {
                    LogMessages.AfterCommitMarkFailed(diagnostics, e);
                }

                continue;
            }

            Volatile.Write(ref marking, 0);
            if (delivered.IsEmpty || Interlocked.CompareExchange(ref marking, 1, 0) != 0)
            {
                return;
            }
        }
    }

    // Not disposed: deliveries under way still read its token as they end.
    public void Dispose() => stopping.Cancel();
}
