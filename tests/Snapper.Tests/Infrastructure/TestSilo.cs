using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Snapper.Hosting;
using Snapper.Logging;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// A real Orleans silo for one test, in this process on loopback, with Snapper added and the
/// samples' and the test actors' grains. Each test gets its own cluster, so tests share no state.
/// </summary>
public sealed class TestSilo : IAsyncDisposable
{
    private readonly IHost host;

    private TestSilo(IHost host)
    {
        this.host = host;
        Client = host.Services.GetRequiredService<ISnapperClient>();
        Gates = host.Services.GetRequiredService<Gates>();
    }

    public ISnapperClient Client { get; }

    public Gates Gates { get; }

    public IServiceProvider Services => host.Services;

    internal SnapperRuntime Runtime => host.Services.GetRequiredService<SnapperRuntime>();

    public static async Task<TestSilo> StartAsync(Action<SnapperBuilder>? configure = null, Action<IServiceCollection>? services = null)
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddSingleton<Gates>();
        services?.Invoke(builder.Services);
        var (siloPort, gatewayPort) = (FreePort(), FreePort());
        builder.UseOrleans(silo => silo
            .UseLocalhostClustering(siloPort, gatewayPort, serviceId: "snapper-tests", clusterId: $"test-{Guid.NewGuid():N}")
            .AddSnapper(snapper =>
            {
                snapper.Configure(o => o.LoggerCount = 2);
                configure?.Invoke(snapper);
            }));
        var host = builder.Build();
        try
        {
            await host.StartAsync();
        }
        catch
        {
            host.Dispose();
            throw;
        }

        return new TestSilo(host);
    }

    /// <summary>The key of this silo's coordinator <paramref name="index"/>.</summary>
    internal string CoordinatorKey(int index) => Snapper.Coordination.CoordinatorKey.For(Services.GetRequiredService<ILocalSiloDetails>().Name, index);

    /// <summary>What the coordinators of the ring say, summed up.</summary>
    internal async Task<RingState> Ring()
    {
        var grains = Services.GetRequiredService<IGrainFactory>();
        var view = await grains.GetGrain<Snapper.Coordination.IRingMembership>(0).View();
        var statuses = await Task.WhenAll(view.Members.Select(k => grains.GetGrain<Snapper.Coordination.ICoordinator>(k).Status()));
        return new RingState(statuses.Any(s => s.Parked), statuses.Sum(s => s.Unresolved), statuses.Any(s => s.Cascading));
    }

    /// <summary>The ACT engine of an active transactional actor, for checking locks and records.</summary>
    internal Snapper.Act.ActParticipant<TState> Engine<TState>(ActorId id)
        where TState : class, new() =>
        Actor<TState>(id).Engine;

    /// <summary>A transactional actor's grain instance on this silo, activated first if need be.</summary>
    internal TransactionalActor<TState> Actor<TState>(ActorId id)
        where TState : class, new()
    {
        if (!Runtime.Activations.TryGetValue(id, out var actor))
        {
            // Any protocol message activates it; this one only reads.
            Runtime.Resolver.Participant(id).DescribeWait(0).GetAwaiter().GetResult();
            actor = Runtime.Activations[id];
        }

        return (TransactionalActor<TState>)actor;
    }

    /// <summary>Every record in every logger's log, decoded, in append order per log.</summary>
    internal async Task<List<LogRecord>> LogRecords()
    {
        var storage = Services.GetRequiredService<ILogStorage>();
        var records = new List<LogRecord>();
        for (var i = 0; i < Runtime.Options.LoggerCount; i++)
        {
            await foreach (var bytes in storage.ReadAsync($"snapper-log-{i}", CancellationToken.None))
            {
                records.Add(LogRecordCodec.Decode(bytes.Span));
            }
        }

        return records;
    }

    /// <summary>Asserts no transaction is left anywhere: no records, no locks, no running tids.</summary>
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

    public async ValueTask DisposeAsync()
    {
        try
        {
            await host.StopAsync();
        }
        finally
        {
            host.Dispose();
        }
    }

    // A port the OS just handed out; tests start silos in parallel, so fixed ports would collide.
    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}

/// <summary>The ring, summed up over its coordinators.</summary>
internal readonly record struct RingState(bool Parked, int Unresolved, bool Cascading);
