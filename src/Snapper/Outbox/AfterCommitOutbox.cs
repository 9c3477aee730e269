using System.Collections.Concurrent;
using System.Collections.Immutable;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Configuration;
using Snapper.Diagnostics;
using Snapper.Logging;

namespace Snapper.Outbox;

/// <summary>
/// A silo's outbox: delivers the after-commit actions of the transactions this silo decided, once
/// each decision is durable, and those its logs still owe when it starts
/// (docs/architecture.md, "After-commit actions").
/// </summary>
/// <remarks>
/// <para>Each action is tried until its handler returns, with a doubling backoff between failed
/// attempts (100 ms up to <see cref="SnapperOptions.AfterCommitMaxBackoff"/>), and no action
/// waits for another: a failing handler holds up nothing but its own actions. Once taken, the action
/// is noted in the log (<see cref="DeliveredRecord"/>, several per record, not waited for): what a
/// crash keeps from being noted is delivered again, at least once.</para>
/// <para>Actions owed at start wait for the silo to be active, since a handler may call grains.
/// When the silo stops, attempts under way are cancelled and the rest stays owed in the log.</para>
/// </remarks>
internal sealed class AfterCommitOutbox : ILifecycleParticipant<ISiloLifecycle>, IDisposable
{
    private static readonly TimeSpan FirstBackoff = TimeSpan.FromMilliseconds(100);

    private readonly AfterCommitHandlers handlers;
    private readonly LogWriterPool loggers;
    private readonly SnapperMetrics metrics;
    private readonly TimeProvider clock;
    private readonly SnapperOptions settings;
    private readonly ILogger diagnostics;
    private readonly CancellationTokenSource stopping = new();
    private readonly ConcurrentQueue<AfterCommitId> delivered = new();
    private readonly TaskCompletionSource active = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private int marking; // 1 while a DeliveredRecord is being appended
    private long owed;

    public AfterCommitOutbox(AfterCommitHandlers handlers, LogWriterPool loggers, SnapperMetrics metrics, TimeProvider clock, IOptions<SnapperOptions> options, ILoggerFactory loggerFactory)
    {
        this.handlers = handlers;
        this.loggers = loggers;
        this.metrics = metrics;
        this.clock = clock;
        settings = options.Value;
        diagnostics = loggerFactory.CreateLogger("Snapper.Outbox");
    }

    /// <summary>Actions committed and not yet taken by a handler here.</summary>
    public long Owed => Interlocked.Read(ref owed);

    /// <summary>Starts delivering once the silo is active; stops (the rest stays owed) when it stops.</summary>
    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(AfterCommitOutbox), ServiceLifecycleStage.Active, _ =>
        {
            active.TrySetResult();
            return Task.CompletedTask;
        }, _ =>
        {
            stopping.Cancel();
            return Task.CompletedTask;
        });

    /// <summary>
    /// The transaction that registered <paramref name="actions"/> has committed, and its decision
    /// is durable (or nothing is logged): they are delivered from now on.
    /// </summary>
    public void Deliver(IEnumerable<AfterCommitAction> actions)
    {
        foreach (var action in actions)
        {
            Interlocked.Increment(ref owed);
            metrics.AfterCommitOwed(1);
            _ = Run(action);
        }
    }

    private async Task Run(AfterCommitAction action)
    {
        try
        {
            await active.Task.WaitAsync(stopping.Token);
            for (var attempt = 1; ; attempt++)
            {
                Exception failure;
                using (var bounded = CancellationTokenSource.CreateLinkedTokenSource(stopping.Token))
                {
                    bounded.CancelAfter(settings.AfterCommitAttemptTimeout);
                    try
                    {
                        // Off the caller's flow: a decider's grain context, or the logger's thread.
                        await Task.Run(() => handlers.Handle(action, attempt, bounded.Token), bounded.Token).WaitAsync(bounded.Token);
                        metrics.AfterCommitAttempt(delivered: true, handlers.TypeOf(action));
                        Delivered(action.Id);
                        return;
                    }
                    catch (OperationCanceledException) when (stopping.IsCancellationRequested)
                    {
                        return; // still owed in the log: the next start delivers it
                    }
                    catch (Exception e)
                    {
                        failure = e is OperationCanceledException ? new TimeoutException($"the handler ran past AfterCommitAttemptTimeout ({settings.AfterCommitAttemptTimeout})", e) : e;
                    }
                }

                var backoff = Backoff(attempt);
                metrics.AfterCommitAttempt(delivered: false, handlers.TypeOf(action));
                LogMessages.AfterCommitFailed(diagnostics, failure, action.Id.ToString(), handlers.TypeOf(action), attempt, backoff);
                await Task.Delay(backoff, clock, stopping.Token);
            }
        }
        catch (OperationCanceledException) when (stopping.IsCancellationRequested)
        {
            // The silo stops: the action stays owed in the log.
        }
        finally
        {
            Interlocked.Decrement(ref owed);
            metrics.AfterCommitOwed(-1);
        }
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
    private void Delivered(AfterCommitId id)
    {
        if (!loggers.Enabled)
        {
            return;
        }

        delivered.Enqueue(id);
        if (Interlocked.CompareExchange(ref marking, 1, 0) == 0)
        {
            _ = Mark();
        }
    }

    private async Task Mark()
    {
        while (true)
        {
            var ids = ImmutableArray.CreateBuilder<AfterCommitId>();
            while (ids.Count < 4096 && delivered.TryDequeue(out var id))
            {
                ids.Add(id);
            }

            if (ids.Count > 0)
            {
                try
                {
                    var logger = loggers.All[(int)(ids[0].Tid % loggers.All.Count)];
                    await logger.Append(new DeliveredRecord(ids.Max(i => i.Tid), ids.ToImmutable()));
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
