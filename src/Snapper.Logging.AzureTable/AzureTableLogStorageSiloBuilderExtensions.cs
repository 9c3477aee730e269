using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Snapper.Logging;
using Snapper.Logging.AzureTable;
using Snapper.Configuration;

// In Orleans' hosting namespace, beside AddSnapper.
namespace Orleans.Hosting;

/// <summary>The hosting verb of Snapper's Azure Table log storage.</summary>
public static class AzureTableLogStorageSiloBuilderExtensions
{
    /// <summary>
    /// Keeps this silo's Snapper logs in Azure Table Storage, and the states of actors at rest in a
    /// table beside them (<see cref="AzureTableLogStorageOptions.StateTableName"/>) (with <c>Logging = Memory</c>, Snapper's
    /// default, which writes to whatever <see cref="ILogStorage"/> is registered). Before or after
    /// <c>AddSnapper</c>. The options are checked here; the table is created when the silo starts.
    /// Unless <see cref="SnapperOptions.LoggerCount"/> is set, the silo writes one log, as with files:
    /// each group commit costs a round trip to the table service, so one logger's larger groups go
    /// further (SmallBank on Azurite, two invocations each: 1 logger 10.9k and 7.8k PACTs a second,
    /// 5.3k and 5.4k ACTs; 2 loggers 8.5k and 8.4k, 4.6k and 5.0k; 4 loggers 6.4k, 3.9k).
    /// </summary>
    public static ISiloBuilder AddSnapperAzureTableLogStorage(this ISiloBuilder silo, Action<AzureTableLogStorageOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(silo);
        ArgumentNullException.ThrowIfNull(configure);
        var options = new AzureTableLogStorageOptions();
        configure(options);
        options.Validate();
        silo.Services.Replace(ServiceDescriptor.Singleton<ILogStorage>(_ => new AzureTableLogStorage(options)));
        silo.Services.Replace(ServiceDescriptor.Singleton<Snapper.AtRest.IStateStore>(_ => new AzureTableStateStore(options)));
        silo.Services.PostConfigure<SnapperOptions>(o => o.LoggerCount ??= 1);
        return silo;
    }
}
