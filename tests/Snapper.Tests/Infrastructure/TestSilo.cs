using Microsoft.Extensions.DependencyInjection;
using Orleans.Core.Internal;
using Orleans.Runtime.Placement;
using Orleans.TestingHost;
using Snapper.Coordination;
using Snapper.Grains;
using Snapper.Hosting;
using Snapper.Logging;
using Snapper.Protocol;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// A real Orleans cluster for one test, in this process (Orleans' TestingHost): one silo unless
/// asked for more, each with Snapper added and the samples' and test actors' grains, and a cluster
/// client with Snapper added that the test starts transactions from. Each test gets its own
/// cluster, so tests share no state; the silos share the test's <see cref="Gates"/> and whatever
/// the <c>services</c> callback registers (a log storage, say).
/// </summary>
public sealed class TestSilo : IAsyncDisposable
{
    // The states at rest that go with a log storage, as a states.db goes with a folder of file logs.
    private static readonly System.Runtime.CompilerServices.ConditionalWeakTable<ILogStorage, Snapper.AtRest.InMemoryStateStore> StatesBeside = new();
    private readonly InProcessTestCluster cluster;
    private int disposed;

    private TestSilo(InProcessTestCluster cluster, Gates gates)
    {
        this.cluster = cluster;
        Gates = gates;
        Client = cluster.Client.ServiceProvider.GetRequiredService<ISnapperClient>();
    }

    /// <summary>The cluster client's Snapper client: transactions' bodies run in the test, as a user's would.</summary>
    public ISnapperClient Client { get; }

    public Gates Gates { get; }

    /// <summary>The first silo's services.</summary>
    public IServiceProvider Services => cluster.Silos[0].ServiceProvider;

    /// <summary>The Orleans cluster (silos to stop or kill, grains to deactivate).</summary>
    public InProcessTestCluster Cluster => cluster;

    /// <summary>The cluster client's grain factory.</summary>
    public IGrainFactory Grains => cluster.Client;

    /// <summary>The first silo's ActorId → grain references.</summary>
    internal ActorResolver Resolver => Services.GetRequiredService<ActorResolver>();

    /// <summary>The first silo's transactional actors now active.</summary>
    internal ActiveActors Active => Services.GetRequiredService<ActiveActors>();

    /// <summary>The first silo's BatchCommit announcements.</summary>
    internal BatchCommits BatchCommits => Services.GetRequiredService<BatchCommits>();

    /// <summary>The first silo's in-process mail to its coordinators.</summary>
    internal CoordinatorInboxes Inboxes => Services.GetRequiredService<CoordinatorInboxes>();

    /// <summary>The first silo's log writers.</summary>
    internal LogWriterPool Loggers => Services.GetRequiredService<LogWriterPool>();

    /// <summary>Completes once batch <paramref name="bid"/> of <paramref name="coordinator"/> has resolved, as the first silo learns it.</summary>
    internal Task<BatchOutcome> BatchOutcome(long bid, string coordinator) => Services.GetRequiredService<CoordinatorReferences>().WaitResolved(coordinator, bid);

    public static async Task<TestSilo> StartAsync(Action<SnapperBuilder>? configure = null, Action<IServiceCollection>? services = null, int silos = 1, bool activityPropagation = false, Action<IClientBuilder>? client = null)
    {
        var gates = new Gates();
        var builder = new InProcessTestClusterBuilder((short)silos);
        builder.Options.ConfigureFileLogging = false;
        // The cluster's states at rest, unless its logs are files; a later cluster on the same log
        // storage (a restart) finds the states that storage's checkpoints moved there.
        var states = new Snapper.AtRest.InMemoryStateStore();
        builder.ConfigureSiloHost((_, host) =>
        {
            host.Services.AddSingleton(gates);
            host.Services.AddSingleton<Snapper.AtRest.IStateStore>(sp => StatesBeside.GetValue(sp.GetRequiredService<ILogStorage>(), _ => states));
            services?.Invoke(host.Services);
        });
        builder.ConfigureSilo((_, silo) =>
        {
            silo.AddSnapper(snapper =>
            {
                snapper.Configure(o => o.LoggerCount = 2);
                configure?.Invoke(snapper);
            });
            if (activityPropagation)
            {
                silo.AddActivityPropagation();
            }
        });
        builder.ConfigureClient(clientBuilder =>
        {
            clientBuilder.AddSnapper(configure);
            if (activityPropagation)
            {
                clientBuilder.AddActivityPropagation();
            }

            client?.Invoke(clientBuilder);
        });
        var cluster = builder.Build();
        try
        {
            await cluster.DeployAsync();
        }
        catch
        {
            await cluster.DisposeAsync();
            throw;
        }

        return new TestSilo(cluster, gates);
    }

    /// <summary>The key of the first silo's coordinator <paramref name="index"/>.</summary>
    internal string CoordinatorKey(int index) => Snapper.Protocol.CoordinatorKey.For(cluster.Silos[0].Name, index);

    /// <summary>What the coordinators of the ring say, summed up.</summary>
    internal async Task<RingState> Ring()
    {
        var view = await Grains.GetGrain<IRingMembership>(0).View();
        var statuses = await Task.WhenAll(view.Members.Select(k => Grains.GetGrain<ICoordinator>(k).Status()));
        return new RingState(statuses.Any(s => s.Parked), statuses.Sum(s => s.Unresolved), statuses.Any(s => s.Cascading), statuses.Sum(s => s.Waiting));
    }

    /// <summary>
    /// Waits until every batch the ring emitted is committed or aborted. A caller hears its PACT's
    /// outcome from the root, which may be before the coordinator has heard from every actor.
    /// </summary>
    internal Task UntilResolved() => Poll.Until(async () => (await Ring()).Unresolved == 0, "every batch the ring emitted is resolved");

    /// <summary>The ACT engine of an active transactional actor, for checking locks and records.</summary>
    internal Snapper.Act.ActParticipant<TState> Engine<TState>(ActorId id)
        where TState : class, new() =>
        Actor<TState>(id).ActParticipant;

    /// <summary>A transactional actor's grain instance, on whichever silo it is active, activated first if need be.</summary>
    internal TransactionalActor<TState> Actor<TState>(ActorId id)
        where TState : class, new()
    {
        if (Find(id) is not { } actor)
        {
            // Any protocol message activates it; this one only reads.
            Resolver.Participant(id).DescribeWait(0).GetAwaiter().GetResult();
            actor = Find(id) ?? throw new InvalidOperationException($"{id} is active on no silo");
        }

        return (TransactionalActor<TState>)actor;
    }

    /// <summary>
    /// Activates test actors (a read each) until it has one on each of two silos: the first on the
    /// first silo (the one a restarted one-silo cluster is named after), the second on another.
    /// </summary>
    internal async Task<(ActorId First, ActorId Other)> ActorsOnTwoSilos()
    {
        var found = new Dictionary<string, ActorId>();
        for (var i = 0; i < 200 && found.Count < 2; i++)
        {
            var id = ActorId.Create<ITestActor>($"spread-{i}");
            await Client.RunAct<ITestActor, int>(id, (x, ctx) => x.Read(ctx));
            found.TryAdd(SiloOf(id)!, id);
        }

        Assert.True(found.Count == 2, "random placement put 200 actors on one silo");
        var first = cluster.Silos[0].Name;
        return (found[first], found.Single(kv => kv.Key != first).Value);
    }

    /// <summary>
    /// Moves test actor <paramref name="id"/> to <paramref name="to"/> (Orleans' MigrateOnIdle with a
    /// placement hint) and waits until it is active there and nowhere else. Asked again until then:
    /// a silo that has just joined may not yet be a placement target in the others' view, and
    /// Orleans then keeps the actor where it is and says nothing (TestCluster.MigrateAsync would wait
    /// for a deactivation that never comes).
    /// </summary>
    internal async Task MoveTo(ActorId id, InProcessSiloHandle to)
    {
        var until = DateTime.UtcNow + TimeSpan.FromSeconds(60);
        while (!IsActiveOnlyOn(id, to.Name))
        {
            Assert.True(DateTime.UtcNow < until, $"{id} did not move to {to.Name} within 60 s ({ActivationReport(Grains.GetGrain<ITestActor>(id.Key).GetGrainId())})");
            RequestContext.Set(IPlacementDirector.PlacementHintKey, to.SiloAddress);
            try
            {
                await Grains.GetGrain<ITestActor>(id.Key).AsReference<IGrainManagementExtension>().MigrateOnIdle();
            }
            finally
            {
                RequestContext.Remove(IPlacementDirector.PlacementHintKey);
            }

            for (var i = 0; i < 100 && !IsActiveOnlyOn(id, to.Name); i++)
            {
                await Task.Delay(10);
            }
        }
    }

    private bool IsActiveOnlyOn(ActorId id, string silo) =>
        cluster.Silos.Where(s => s.ServiceProvider.GetRequiredService<ActiveActors>().Contains(id)).Select(s => s.Name).SequenceEqual([silo]);

    /// <summary>The name of the silo <paramref name="id"/> is active on, or null.</summary>
    internal string? SiloOf(ActorId id) =>
        cluster.Silos.FirstOrDefault(s => s.ServiceProvider.GetRequiredService<ActiveActors>().Contains(id))?.Name;

    /// <summary>
    /// For a test's failure message: each silo's activation of <paramref name="grain"/> as Orleans
    /// describes it (state, requests running and queued, the one that blocks it). Orleans keeps that
    /// description internal, so it is read by reflection; a diagnostic, never asserted on.
    /// </summary>
    internal string ActivationReport(GrainId grain)
    {
        var directoryType = typeof(Orleans.Runtime.Silo).Assembly.GetType("Orleans.Runtime.ActivationDirectory");
        var lines = new List<string>();
        foreach (var silo in cluster.Silos)
        {
            var directory = directoryType is null ? null : silo.ServiceProvider.GetService(directoryType);
            var activation = directory?.GetType().GetMethod("FindTarget")?.Invoke(directory, [grain]);
            var detailed = activation?.GetType().GetMethod("ToDetailedString", System.Reflection.BindingFlags.Instance | System.Reflection.BindingFlags.NonPublic);
            lines.Add($"{silo.Name}: {(activation is null ? "none" : detailed?.Invoke(activation, [true]) ?? activation.ToString())}");
        }

        return string.Join("; ", lines);
    }

    /// <summary>
    /// Every transaction record in every log of every silo's storage, decoded, in append order per
    /// log: all but the ring's <see cref="TidReservationRecord"/>s, which come and go with tid ranges.
    /// </summary>
    internal async Task<List<LogRecord>> LogRecords()
    {
        var records = new List<LogRecord>();
        var seen = new HashSet<ILogStorage>(ReferenceEqualityComparer.Instance);
        foreach (var silo in cluster.Silos)
        {
            var storage = silo.ServiceProvider.GetRequiredService<ILogStorage>();
            if (!seen.Add(storage))
            {
                continue; // shared by the silos
            }

            await foreach (var log in storage.ListAsync(CancellationToken.None))
            {
                await foreach (var bytes in storage.ReadAsync(log, CancellationToken.None))
                {
                    if (LogRecordCodec.Decode(bytes.Span) is not TidReservationRecord and var record)
                    {
                        records.Add(record);
                    }
                }
            }
        }

        return records;
    }

    /// <summary>Asserts no transaction is left on these actors: no records, no locks, no running ACTs rooted there.</summary>
    internal void AssertQuiescent<TState>(params ActorId[] actors)
        where TState : class, new()
    {
        foreach (var actor in actors)
        {
            var engine = Engine<TState>(actor);
            Assert.True(engine.ActiveRecords == 0, $"{actor} still has {engine.ActiveRecords} transaction record(s)");
            Assert.True(engine.Lock.IsFree, $"{actor} still has a lock held");
            Assert.Equal(0, engine.Lock.WaiterCount);
            Assert.True(engine.Roots.Count == 0, $"{actor} still coordinates {engine.Roots.Count} running ACT(s)");
        }
    }

    /// <summary>Stops the cluster; a second call does nothing (a test may stop it early, then leave the scope).</summary>
    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref disposed, 1) == 1)
        {
            return;
        }

        try
        {
            await cluster.StopAllSilosAsync();
        }
        finally
        {
            await cluster.DisposeAsync();
        }
    }

    private object? Find(ActorId id)
    {
        foreach (var silo in cluster.Silos)
        {
            if (silo.ServiceProvider.GetRequiredService<ActiveActors>().TryGet(id, out var actor))
            {
                return actor;
            }
        }

        return null;
    }
}

/// <summary>The ring, summed up over its coordinators.</summary>
internal readonly record struct RingState(bool Parked, int Unresolved, bool Cascading, int Waiting);
