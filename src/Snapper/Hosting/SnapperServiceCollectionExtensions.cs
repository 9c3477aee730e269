using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using Snapper.Act;
using Snapper.Actors;
using Snapper.Coordination;
using Snapper.Diagnostics;
using Microsoft.Extensions.Logging;
using Snapper.Logging;
using Snapper.Logging.FileStorage;
using Snapper.Recovery;
using Orleans.Serialization;
using Snapper.Serialization;

namespace Snapper.Hosting;

/// <summary>The one hosting verb: <c>services.AddSnapper(snapper => ...)</c>.</summary>
public static class SnapperServiceCollectionExtensions
{
    /// <summary>
    /// Adds the Snapper runtime to a silo's services: the actors registered in
    /// <paramref name="build"/>, the coordinator, loggers and an <see cref="ISnapperClient"/>.
    /// Services registered before this call (log storage, state serializer, clock) win.
    /// </summary>
    public static IServiceCollection AddSnapper(this IServiceCollection services, Action<SnapperBuilder> build)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(build);
        if (services.Any(d => d.ServiceType == typeof(ActorRegistry)))
        {
            throw new InvalidOperationException("AddSnapper was called twice on the same services; register every actor in one call.");
        }

        var builder = new SnapperBuilder(new ActorRegistry());
        build(builder);

        var options = services.AddOptions<SnapperOptions>();
        foreach (var configure in builder.Configurations)
        {
            options.Configure(configure);
        }

        options.ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<SnapperOptions>, SnapperOptionsValidator>());

        services.AddSingleton(builder.Registry);
        services.TryAddSingleton(TimeProvider.System);
        services.TryAddSingleton<ILogStorage>(sp =>
        {
            // Chosen by the options; a storage registered before AddSnapper wins over both.
            var settings = sp.GetRequiredService<IOptions<SnapperOptions>>().Value;
            return settings.Logging == LoggingMode.File
                ? new FileLogStorage(new FileLogStorageOptions { Directory = settings.LogDirectory! }, sp.GetService<ILogger<FileLogStorage>>())
                : new InMemoryLogStorage();
        });
        services.AddSerializer(); // Orleans' serializer; a silo has registered it already
        services.TryAddSingleton<IStateSerializer, OrleansStateSerializer>();
        services.TryAddSingleton<SnapperMetrics>();
        services.AddSingleton<ActorDirectory>();
        services.AddSingleton<TidAuthority>();
        services.AddSingleton<TidSource>();
        services.AddSingleton<ActiveTransactions>();
        services.AddSingleton<LoggerPool>();
        services.AddSingleton<ActCommitCoordinator>();
        services.AddSingleton<PactRing>();
        services.AddSingleton<RecoveredState>();
        services.AddHostedService<LogRecovery>();
        services.AddSingleton<SnapperRuntime>();
        services.AddSingleton<ISnapperClient, SnapperClient>();
        return services;
    }
}
