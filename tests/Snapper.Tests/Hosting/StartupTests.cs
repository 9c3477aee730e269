using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;
using SmallBank;
using Snapper.Tests.Infrastructure;
using Snapper.Configuration;

namespace Snapper.Tests.Hosting;

/// <summary>Bad configuration and bad input fail early, with a message naming the problem.</summary>
public sealed class StartupTests
{
    [Theory]
    [InlineData("LoggerCount")]
    [InlineData("ActTidRangeSize")]
    [InlineData("MaxBatchesInFlight")]
    [InlineData("TransactionTimeout")]
    [InlineData("Logging")]
    public async Task A_bad_option_fails_start_up_naming_the_option(string option)
    {
        Action<SnapperOptions> breakIt = option switch
        {
            "LoggerCount" => o => o.LoggerCount = 0,
            "ActTidRangeSize" => o => o.ActTidRangeSize = -5,
            "MaxBatchesInFlight" => o => o.MaxBatchesInFlight = 0,
            "TransactionTimeout" => o => o.TransactionTimeout = TimeSpan.Zero,
            _ => o => o.Logging = (LoggingMode)42,
        };

        var failure = await Assert.ThrowsAsync<OptionsValidationException>(() => TestSilo.StartAsync(s => s.Configure(breakIt)));

        Assert.Contains($"SnapperOptions.{option}", failure.Message);
    }

    [Fact]
    public async Task Good_options_are_applied()
    {
        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.ActTidRangeSize = 3));
        Assert.Equal(3, silo.Services.GetRequiredService<IOptions<SnapperOptions>>().Value.ActTidRangeSize);

        // Tids keep increasing across range refills.
        var tids = new List<long>();
        for (var i = 0; i < 7; i++)
        {
            tids.Add((await silo.Client.RunAct<ITestActor, TxnContext>(ActorId.Create<ITestActor>("t"), (a, ctx) => a.Leak(ctx))).Tid);
        }

        Assert.Equal(tids.Order(), tids);
        Assert.Equal(tids.Count, tids.Distinct().Count());
    }

    [Fact]
    public void A_silo_logging_to_Azure_Tables_writes_one_log_unless_LoggerCount_says_otherwise()
    {
        static SnapperOptions OptionsOf(Action<ISiloBuilder> configure)
        {
            var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
            builder.UseOrleans(silo => configure(silo.UseLocalhostClustering()));
            using var host = builder.Build();
            return host.Services.GetRequiredService<IOptions<SnapperOptions>>().Value;
        }

        const string Azurite = "UseDevelopmentStorage=true";

        // LoggerCount itself, not only the count in effect: on a one-core machine the default is 1 too.
        Assert.Equal(1, OptionsOf(s => s.AddSnapper().AddSnapperAzureTableLogStorage(o => o.ConnectionString = Azurite)).LoggerCount);
        Assert.Equal(1, OptionsOf(s => s.AddSnapperAzureTableLogStorage(o => o.ConnectionString = Azurite).AddSnapper()).LoggerCount);
        Assert.Equal(1, OptionsOf(s => s.AddSnapper().AddSnapperAzureTableLogStorage(o => o.ConnectionString = Azurite)).EffectiveLoggerCount);
        Assert.Equal(1, OptionsOf(s => s.AddSnapperAzureTableLogStorage(o => o.ConnectionString = Azurite).AddSnapper()).EffectiveLoggerCount);
        Assert.Equal(3, OptionsOf(s => s.AddSnapper(b => b.Configure(o => o.LoggerCount = 3)).AddSnapperAzureTableLogStorage(o => o.ConnectionString = Azurite)).EffectiveLoggerCount);
        Assert.Null(OptionsOf(s => s.AddSnapper()).LoggerCount);
        Assert.Equal(SnapperOptions.DefaultLoggerCount, OptionsOf(s => s.AddSnapper()).EffectiveLoggerCount);
    }

    [Fact]
    public void Adding_Snapper_twice_to_a_silo_is_refused()
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        var twice = Assert.Throws<InvalidOperationException>(() => builder.UseOrleans(silo => silo.AddSnapper().AddSnapper()));
        Assert.Contains("AddSnapper was called twice", twice.Message);
    }

    [Fact]
    public async Task A_transactional_grain_without_a_transactional_interface_fails_activation_naming_it()
    {
        await using var silo = await TestSilo.StartAsync();
        var failure = await Assert.ThrowsAnyAsync<Exception>(() =>
            silo.Grains.GetGrain<IPlainTestActor>("p").Ping());
        Assert.Contains("PlainButTransactional must implement exactly one transactional actor interface", failure.ToString());
    }

    [Fact]
    public async Task Calling_an_actor_interface_no_grain_implements_names_it()
    {
        await using var silo = await TestSilo.StartAsync();
        var failure = await Assert.ThrowsAsync<SnapperException>(() =>
            silo.Client.RunAct<IUnregisteredActor, int>(ActorId.Create<IUnregisteredActor>("x"), (a, ctx) => a.Go(ctx)));
        Assert.Contains("no grain class implementing Snapper.Tests.Hosting.IUnregisteredActor", failure.Message);
    }

    [Fact]
    public async Task An_actor_id_of_another_type_is_refused()
    {
        await using var silo = await TestSilo.StartAsync();
        var failure = await Assert.ThrowsAsync<SnapperException>(() =>
            silo.Client.RunAct<IAccountActor, decimal>(ActorId.Create<ITestActor>("7"), (a, ctx) => a.Balance(ctx)));
        Assert.Contains("but it was called as a SmallBank.IAccountActor", failure.Message);
    }

    [Fact]
    public async Task A_state_that_cannot_be_serialized_fails_activation_naming_the_type()
    {
        await using var silo = await TestSilo.StartAsync();
        var failure = await Assert.ThrowsAsync<SnapperException>(() =>
            silo.Client.RunAct<IUnserializableActor>(ActorId.Create<IUnserializableActor>("c"), (a, ctx) => a.Touch(ctx)));
        Assert.Contains("The state type Snapper.Tests.Infrastructure.Unserializable of actor", failure.Message);
        Assert.Contains("cannot be serialized", failure.Message);
    }
}

public interface IUnregisteredActor : ITransactionalActor, IGrainWithStringKey
{
    Task<int> Go(TxnContext ctx);
}

public interface IPlainTestActor : IActor, IGrainWithStringKey
{
    Task<int> Ping();
}

public sealed class PlainButTransactional : TransactionalActor<Counter>, IPlainTestActor
{
    public Task<int> Ping() => Task.FromResult(1);
}
