using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Options;
using Snapper.Coordination;
using Snapper.Diagnostics;
using Snapper.Grains;

using Snapper;
using Snapper.Hosting;
using Snapper.Configuration;

// In Orleans' hosting namespace, where Orleans users find UseTransactions and the other hosting verbs.
namespace Orleans.Hosting;

/// <summary>The hosting verb for cluster clients: <c>clientBuilder.AddSnapper()</c>.</summary>
public static class SnapperClientBuilderExtensions
{
    /// <summary>
    /// Lets an Orleans cluster client start Snapper transactions: registers an
    /// <see cref="ISnapperClient"/> over the client's grain factory, and the call filter that
    /// carries a transaction's first call and execution info. The cluster's silos must have
    /// Snapper added (<c>AddSnapper</c> on the silo builder). Of the options, the client uses
    /// <see cref="SnapperOptions.TransactionTimeout"/>, <see cref="SnapperOptions.ActTidRangeSize"/>
    /// and <see cref="SnapperOptions.EarlyLockRelease"/>.
    /// </summary>
    public static IClientBuilder AddSnapper(this IClientBuilder client, Action<SnapperBuilder>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(client);
        AddTransactionStarts<ClientCoordinators>(client.Services, "client", configure);
        client.AddOutgoingGrainCallFilter<ExecutionInfoCallFilter>();
        return client;
    }

    /// <summary>
    /// What a silo and a client alike need to start transactions: the options (validated when the
    /// host starts), a clock, the metrics, actor and coordinator references, ACT tids, and the
    /// <see cref="ISnapperClient"/>, with <typeparamref name="TDirectory"/> saying where NewPact goes.
    /// Services registered before (a clock, metrics) win. Throws if Snapper was added already.
    /// </summary>
    internal static void AddTransactionStarts<TDirectory>(IServiceCollection services, string host, Action<SnapperBuilder>? configure)
        where TDirectory : class, ICoordinatorDirectory
    {
        if (services.Any(d => d.ServiceType == typeof(ISnapperClient)))
        {
            throw new InvalidOperationException($"AddSnapper was called twice on the same {host}; configure Snapper in one call.");
        }

        AddOptions(services, configure, silo: host == "silo");
        services.TryAddSingleton(TimeProvider.System);
        services.TryAddSingleton<SnapperMetrics>();
        services.AddSingleton<ActorResolver>();
        services.AddSingleton<CoordinatorReferences>();
        services.AddSingleton<ICoordinatorDirectory, TDirectory>();
        services.AddSingleton<TidSource>();
        services.AddSingleton<ISnapperClient, SnapperClient>();
    }

    /// <summary>Options from <paramref name="configure"/>, validated when the host starts.</summary>
    internal static void AddOptions(IServiceCollection services, Action<SnapperBuilder>? configure, bool silo)
    {
        var builder = new SnapperBuilder { Services = silo ? services : null };
        configure?.Invoke(builder);
        var options = services.AddOptions<SnapperOptions>();
        foreach (var configuration in builder.Configurations)
        {
            options.Configure(configuration);
        }

        options.ValidateOnStart();
        services.TryAddEnumerable(ServiceDescriptor.Singleton<IValidateOptions<SnapperOptions>, SnapperOptionsValidator>());
    }
}
