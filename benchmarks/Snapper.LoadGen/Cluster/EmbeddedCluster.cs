using System.Net;
using System.Net.Sockets;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans.Configuration;
using ListAppend;
using SmallBank;
using Snapper.LoadGen.Nemesis;
using Snapper.LoadGen.Options;
using Snapper.Configuration;

namespace Snapper.LoadGen.Cluster;

/// <summary>
/// Orleans silos in this process (<c>--silos N</c>, default 1), on loopback ports the OS hands
/// out, with Snapper and the samples' actors: silo 0 is the primary of a development cluster and
/// the others join it, so cross-silo costs show on one machine. Transactions are issued through
/// silo 0's <see cref="ISnapperClient"/>; actors are placed on every silo.
/// </summary>
public sealed class EmbeddedCluster : ILoadGenCluster
{
    private readonly List<IHost> hosts;
    private readonly bool deleteLogDirectory;
    private readonly AzureTableRun? azureTable;

    private EmbeddedCluster(List<IHost> hosts, string? logDirectory, bool deleteLogDirectory, AzureTableRun? azureTable)
    {
        this.azureTable = azureTable;
        this.hosts = hosts;
        this.deleteLogDirectory = deleteLogDirectory;
        LogDirectory = logDirectory;
        Client = hosts[0].Services.GetRequiredService<ISnapperClient>();
        Grains = hosts[0].Services.GetRequiredService<IGrainFactory>();
    }

    /// <inheritdoc />
    public ISnapperClient Client { get; }

    /// <inheritdoc />
    public IGrainFactory Grains { get; }

    /// <inheritdoc />
    public string Kind => KindName;

    /// <summary>The <see cref="Kind"/> of every embedded cluster.</summary>
    public const string KindName = "embedded";

    /// <inheritdoc />
    public string? LogDirectory { get; }

    /// <inheritdoc />
    public long LogBytes() =>
        LogDirectory is not null && Directory.Exists(LogDirectory)
            ? new DirectoryInfo(LogDirectory).EnumerateFiles("*", SearchOption.AllDirectories).Sum(f => f.Length)
            : 0;

    /// <inheritdoc />
    public Task<int> CountSilos() => ClusterMembership.CountActiveSilos(hosts[0].Services.GetRequiredService<IGrainFactory>());

    /// <summary>Builds and starts the silos <paramref name="options"/> describe, the primary first.</summary>
    /// <param name="options">The silo count and logger kind are taken from here.</param>
    /// <param name="diagnostics">Where the runtime's warnings and errors go (stderr): stdout is for the results.</param>
    /// <param name="cancellationToken">Cancels the start.</param>
    /// <param name="faults">The nemesis' call-level faults (<c>--nemesis delay,timeout</c>), given to every silo; null: none.</param>
    public static async Task<EmbeddedCluster> StartAsync(LoadGenOptions options, TextWriter diagnostics, CancellationToken cancellationToken, CallFaults? faults = null)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(diagnostics);
        var logDirectory = options.Logger == LoggerKind.File
            ? options.LogDir ?? Path.Combine(Path.GetTempPath(), $"snapper-loadgen-{Environment.ProcessId}-{Guid.NewGuid():N}")
            : null;
        var clusterId = $"loadgen-{Environment.ProcessId}-{Guid.NewGuid():N}";
        var azureTable = options.Logger == LoggerKind.AzureTable ? new AzureTableRun(options.Connection) : null;
        var hosts = new List<IHost>();
        try
        {
            IPEndPoint? primary = null;
            for (var i = 0; i < options.Silos; i++)
            {
                var siloPort = FreePort();
                var host = BuildSilo($"silo{i}", siloPort, FreePort(), primary, clusterId, options, logDirectory, azureTable, faults, diagnostics);
                hosts.Add(host);
                await host.StartAsync(cancellationToken);
                foreach (var log in host.Services.GetServices<ILoggerProvider>().OfType<TextWriterLoggerProvider>())
                {
                    log.Serving();
                }

                primary ??= new IPEndPoint(IPAddress.Loopback, siloPort);
            }

            return new EmbeddedCluster(hosts, logDirectory, deleteLogDirectory: logDirectory is not null && options.LogDir is null, azureTable);
        }
        catch
        {
            foreach (var log in hosts.SelectMany(h => h.Services.GetServices<ILoggerProvider>()).OfType<TextWriterLoggerProvider>())
            {
                log.StartFailed(options.Verbose);
            }

            try
            {
                await StopAsync(hosts);
            }
#pragma warning disable CA1031 // A silo that did not start may fail to stop too; the start's failure is the one to report.
            catch (Exception)
#pragma warning restore CA1031
            {
            }

            throw;
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        foreach (var log in hosts.SelectMany(h => h.Services.GetServices<ILoggerProvider>()).OfType<TextWriterLoggerProvider>())
        {
            log.Stopping();
        }

        await StopAsync(hosts);
        if (azureTable is not null)
        {
            await azureTable.DeleteAsync();
        }

        if (deleteLogDirectory && LogDirectory is not null && Directory.Exists(LogDirectory))
        {
            Directory.Delete(LogDirectory, recursive: true);
        }
    }

    private static IHost BuildSilo(string name, int siloPort, int gatewayPort, IPEndPoint? primary, string clusterId, LoadGenOptions options, string? logDirectory, AzureTableRun? azureTable, CallFaults? faults, TextWriter diagnostics)
    {
        // No defaults: no appsettings or environment configuration changing a benchmark behind
        // its command line, and no console logger on stdout.
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddSingleton<IHostLifetime, LoadGenHostLifetime>();

        // Warnings only: the runtime logs every actor activation at Information.
        builder.Logging.ClearProviders();
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        builder.Logging.AddProvider(new TextWriterLoggerProvider(diagnostics, options.Verbose));
        builder.UseOrleans(silo =>
        {
            silo
                .UseLocalhostClustering(siloPort, gatewayPort, primary, serviceId: "snapper-loadgen", clusterId: clusterId)
                .Configure<SiloOptions>(o => o.SiloName = name)
                .AddSnapper(snapper => snapper.Configure(o =>
                {
                    o.Logging = options.Logger switch
                    {
                        LoggerKind.None => LoggingMode.None,
                        LoggerKind.File => LoggingMode.File,
                        _ => LoggingMode.RegisteredStorage,
                    };
                    o.LogDirectory = logDirectory;
                    o.LogWriteDelay = TimeSpan.FromMilliseconds(options.LogDelayMs);
                    o.CheckpointInterval = TimeSpan.FromSeconds(options.CheckpointIntervalSeconds);
                    o.MaxPactAttempts = options.PactAttempts;
                    o.Promote = options.Promote;
                    if (faults is { Late: true })
                    {
                        // See AddFaults.
                        o.TransactionTimeout = Min(o.TransactionTimeout, CallFaults.ResponseTimeout);
                        o.DeclarationTimeout = Min(o.DeclarationTimeout, CallFaults.ResponseTimeout);
                    }
                }))
                .AddOrleansTxnSmallBank(TimeSpan.FromMilliseconds(options.LogDelayMs), options.OrleansLockTimeoutMs is { } ms ? TimeSpan.FromMilliseconds(ms) : null)
                .AddTransferNotices() // the samples' after-commit handlers (--after-commit)
                .AddAppendedJournal(path: null);
            if (faults is { Any: true })
            {
                AddFaults(silo, faults);
            }

            if (azureTable is not null)
            {
                silo.AddSnapperAzureTableLogStorage(o => (o.ConnectionString, o.TableName) = (azureTable.Connection, azureTable.TableName));
            }
        });

        return builder.Build();
    }

    // The nemesis' filters on this silo. With "timeout", Orleans' response timeout is lowered for the
    // whole run, and Snapper's transaction and declaration timeouts with it (in BuildSilo): they bound how long a
    // transaction's calls wait for locks and batches, and as long as they are no longer than the
    // response timeout (as their defaults, 30 s and 10 s, are), only the answers the nemesis holds
    // arrive late, not every call that waits its turn.
    private static void AddFaults(ISiloBuilder silo, CallFaults faults)
    {
        silo.AddOutgoingGrainCallFilter(new DelayingCallFilter(faults));
        if (faults.Late)
        {
            silo.AddIncomingGrainCallFilter(new LateAnswerFilter(faults));
            silo.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = CallFaults.ResponseTimeout);
        }
    }

    private static TimeSpan Min(TimeSpan a, TimeSpan b) => a < b ? a : b;

    private static async Task StopAsync(List<IHost> hosts)
    {
        // Secondaries first: the primary holds the development cluster's membership.
        for (var i = hosts.Count - 1; i >= 0; i--)
        {
            try
            {
                await hosts[i].StopAsync(CancellationToken.None);
            }
            finally
            {
                if (hosts[i] is IAsyncDisposable asyncDisposable)
                {
                    await asyncDisposable.DisposeAsync();
                }
                else
                {
                    hosts[i].Dispose();
                }
            }
        }
    }

    // A run's own tables (logs, states at rest): fresh accounts for --verify, deleted when the run ends (as a temporary log folder is).
    private sealed class AzureTableRun(string connection)
    {
        public string Connection { get; } = connection;

        public string TableName { get; } = $"snapperloadgen{Guid.NewGuid():N}";

        public async Task DeleteAsync()
        {
            try
            {
                var service = new Azure.Data.Tables.TableServiceClient(Connection);
                await service.DeleteTableAsync(TableName);
                await service.DeleteTableAsync(new Snapper.Logging.AzureTable.AzureTableLogStorageOptions { TableName = TableName }.StateTableName);
            }
            catch (Azure.RequestFailedException)
            {
                // Storage gone by now: the table stays, named after this run.
            }
        }
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
