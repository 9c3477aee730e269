using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using ListAppend;
using SmallBank;
using Snapper.Hosting;
using Snapper.Logging;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// A silo for one test: a generic host running the Snapper runtime with SmallBank and the test
/// actors. Each test gets its own, so tests share no state.
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
        builder.Services.AddSnapper(snapper =>
        {
            snapper.AddSmallBank()
                   .AddActor<ITestActor, TestActor>()
                   .AddActor<IUnserializableActor, UnserializableActor>()
                   .AddActor<IRecorderActor, RecorderActor>()
                   .AddListAppend()
                   .Configure(o => o.LoggerCount = 2);
            configure?.Invoke(snapper);
        });
        var host = builder.Build();
        await host.StartAsync();
        return new TestSilo(host);
    }

    /// <summary>The ACT engine of a transactional actor, for checking locks and records.</summary>
    internal Snapper.Act.ActParticipant<TState> Engine<TState>(ActorId id)
        where TState : class, new() =>
        ((TransactionalActor<TState>)Runtime.Directory.Get(id).Instance).Engine;

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
        }

        Assert.Equal(0, Runtime.Active.Count);
    }

    public async ValueTask DisposeAsync()
    {
        await host.StopAsync();
        host.Dispose();
    }
}
