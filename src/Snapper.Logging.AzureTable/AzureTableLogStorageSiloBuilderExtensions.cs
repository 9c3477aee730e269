using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Snapper.Logging;
using Snapper.Logging.AzureTable;

// In Orleans' hosting namespace, beside AddSnapper.
namespace Orleans.Hosting;

/// <summary>The hosting verb of Snapper's Azure Table log storage.</summary>
public static class AzureTableLogStorageSiloBuilderExtensions
{
    /// <summary>
    /// Keeps this silo's Snapper logs in Azure Table Storage (with <c>Logging = Memory</c>, Snapper's
    /// default, which writes to whatever <see cref="ILogStorage"/> is registered). Before or after
    /// <c>AddSnapper</c>. The options are checked here; the table is created when the silo starts.
    /// </summary>
    public static ISiloBuilder AddSnapperAzureTableLogStorage(this ISiloBuilder silo, Action<AzureTableLogStorageOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(silo);
        ArgumentNullException.ThrowIfNull(configure);
        var options = new AzureTableLogStorageOptions();
        configure(options);
        options.Validate();
        silo.Services.Replace(ServiceDescriptor.Singleton<ILogStorage>(_ => new AzureTableLogStorage(options)));
        return silo;
    }
}
