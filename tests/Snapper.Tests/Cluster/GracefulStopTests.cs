using System.Collections.Concurrent;
using ListAppend;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Snapper.History;
using Snapper.Logging;
using Snapper.Tests.Hybrid;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Cluster;

/// <summary>
/// One silo of two stops gracefully (Orleans TestingHost's StopSiloAsync) under hybrid list-append
/// load. Chaos run of stop 58: a SIGTERMed SiloHost took Orleans' whole 30 s shutdown timeout
/// ("Some grains failed to deactivate promptly"), and here the survivor then committed nothing for
/// a minute in most runs. A cycle held it: Orleans moves a stopping silo's grains and waits for
/// their new activations; those waited for the stopping silo's failover, which begins only once it
/// is gone; and they could not take their states from it, its hand-over grain deactivating too.
/// PACTs queued at its coordinators, out of the ring, waited too. The stop must end without Orleans
/// giving up on a grain, the load must go on, and the history must check.
/// </summary>
public sealed class GracefulStopTests
{
    private static readonly TimeSpan Answer = TimeSpan.FromSeconds(60);

    private static readonly TimeSpan LoadPatience = TimeSpan.FromMinutes(1);

    [Fact]
    public async Task A_silo_stopped_under_load_hands_its_actors_on_without_running_into_its_shutdown_timeout()
    {
        var storage = new InMemoryLogStorage();
        var warnings = new OrleansGaveUp();
        await using var cluster = await TestSilo.StartAsync(
            s => s.Configure(o =>
            {
                o.CoordinatorCount = 2;
                o.EarlyLockRelease = true;
                o.CheckpointInterval = TimeSpan.Zero;
            }),
            services =>
            {
                services.AddSingleton<ILogStorage>(storage);
                services.AddSingleton<ILoggerProvider>(warnings);
            },
            silos: 2,
            client: c => c.Configure<Orleans.Configuration.ClientMessagingOptions>(o => o.ResponseTimeout = TimeSpan.FromSeconds(5)));
        var ids = Enumerable.Range(0, 32).Select(i => ActorId.Create<IListActor>(i)).ToArray();
        await HybridConsistencyTests.ReadAll(cluster.Client, ids); // spread over both silos
        var victim = cluster.Cluster.Silos[1];
        Assert.Contains(ids, id => cluster.SiloOf(id) == victim.Name);

        var history = new ConcurrentBag<HistoryEntry>();
        using var stop = new CancellationTokenSource();
        var workers = Enumerable.Range(0, 16).Select(w => Task.Run(async () =>
        {
            var random = new Random(w);
            while (!stop.IsCancellationRequested)
            {
                var plan = ids.OrderBy(_ => random.Next()).Take(3).ToArray();
                if (await SiloFailureTests.Run(cluster.Client, random.Next(100) < 50, plan).WaitAsync(Answer) is { } entry)
                {
                    history.Add(entry);
                }
            }
        })).ToArray();

        try
        {
            // A minute, not Poll's 20 s: on a starved CI runner a fresh hybrid load once did not
            // reach 300 commits in 20 s (the commits follow the CPU the test host gets).
            await Poll.Until(() => history.Count(h => h.Status == TransactionStatus.Committed) >= 300, "the load commits", LoadPatience);
            await cluster.Cluster.StopSiloAsync(victim);
            var committed = history.Count(h => h.Status == TransactionStatus.Committed);
            await Poll.Until(() => history.Count(h => h.Status == TransactionStatus.Committed) >= committed + 300, "the load goes on after the stop", LoadPatience);
        }
        finally
        {
            // Also when a poll fails: the workers would go on for as long as the test process runs,
            // spinning on the disposed cluster and starving every test after this one.
            await stop.CancelAsync();
        }

        await Task.WhenAll(workers);

        Assert.True(warnings.Lines.IsEmpty, $"Orleans gave up on the stop: {string.Join("; ", warnings.Lines)}");
        var result = ListAppendChecker.Check([.. history], await HybridConsistencyTests.ReadAll(cluster.Client, ids));
        Assert.True(result.Ok, CheckReport.Render(result));
    }

    // Orleans' lines saying a stop ran into its shutdown timeout.
    private sealed class OrleansGaveUp : ILoggerProvider
    {
        public ConcurrentQueue<string> Lines { get; } = new();

        public ILogger CreateLogger(string categoryName) => new Sink(this, categoryName);

        public void Dispose()
        {
        }

        private sealed class Sink(OrleansGaveUp owner, string category) : ILogger
        {
            public IDisposable? BeginScope<TState>(TState state)
                where TState : notnull => null;

            public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Warning && category.StartsWith("Orleans.Runtime.Silo", StringComparison.Ordinal);

            public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
            {
                var line = formatter(state, exception);
                if (IsEnabled(logLevel) && (line.Contains("failed to deactivate promptly", StringComparison.Ordinal) || line.Contains("canceled at stage", StringComparison.Ordinal)))
                {
                    owner.Lines.Enqueue($"{category}: {line}");
                }
            }
        }
    }
}
