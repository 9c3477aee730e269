using System.Net;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans.Configuration;

namespace Snapper.LoadGen.Cluster;

/// <summary>
/// Running SiloHosts (<c>--cluster host:port,...</c>, their gateway endpoints), driven through an
/// Orleans cluster client with Snapper added. The silos' own options (logger, log directory) are
/// theirs; this process only issues transactions.
/// </summary>
public sealed class ExternalCluster : ILoadGenCluster
{
    /// <summary>The cluster and service id SiloHost's development clustering uses.</summary>
    public const string ClusterId = "snapper";

    private static readonly TimeSpan ConnectPatience = TimeSpan.FromSeconds(10);
    private static readonly TimeSpan StopPatience = TimeSpan.FromSeconds(10);
    private readonly IHost host;
    private readonly TextWriter diagnostics;

    private readonly GatewayConnections connections;

    private ExternalCluster(IHost host, GatewayConnections connections, TextWriter diagnostics)
    {
        this.host = host;
        this.connections = connections;
        this.diagnostics = diagnostics;
        Client = host.Services.GetRequiredService<ISnapperClient>();
        Grains = host.Services.GetRequiredService<IClusterClient>();
    }

    /// <inheritdoc />
    public ISnapperClient Client { get; }

    /// <inheritdoc />
    public IGrainFactory Grains { get; }

    /// <inheritdoc />
    public string Kind => "external";

    /// <inheritdoc />
    public string? LogDirectory => null;

    /// <inheritdoc />
    public long LogBytes() => 0;

    /// <inheritdoc />
    public string? Lost => connections.Lost;

    /// <inheritdoc />
    public Task<int> CountSilos() => ClusterMembership.CountActiveSilos(host.Services.GetRequiredService<IClusterClient>());

    /// <summary>
    /// Connects to the gateways (PACTs a cascade aborts run up to <paramref name="pactAttempts"/> times,
    /// a call unanswered after <paramref name="responseTimeout"/> fails); throws if none answers.
    /// </summary>
    public static async Task<ExternalCluster> ConnectAsync(IReadOnlyList<IPEndPoint> gateways, int pactAttempts, bool promote, TimeSpan responseTimeout, TextWriter diagnostics, bool verbose, CancellationToken cancellationToken)
    {
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddSingleton<IHostLifetime, LoadGenHostLifetime>();
        builder.Logging.ClearProviders();
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        builder.Logging.AddProvider(new TextWriterLoggerProvider(diagnostics, verbose));
        // Silos that are still starting get a few seconds; an unreachable cluster is reported then.
        var giveUpAt = DateTime.UtcNow + ConnectPatience;
        var connections = new GatewayConnections(gateways);
        builder.UseOrleansClient(client => client
            .AddGatewayCountChangedHandler((_, e) => connections.Count(e.NumberOfConnectedGateways))
            .AddClusterConnectionLostHandler((_, _) => connections.Count(0))
            .UseStaticClustering([.. gateways])
            .UseConnectionRetryFilter(async (_, token) =>
            {
                if (DateTime.UtcNow >= giveUpAt)
                {
                    return false;
                }

                await Task.Delay(TimeSpan.FromSeconds(1), token);
                return true;
            })
            .Configure<ClusterOptions>(o => (o.ClusterId, o.ServiceId) = (ClusterId, ClusterId))
            .Configure<ClientMessagingOptions>(o => o.ResponseTimeout = responseTimeout)
            .AddSnapper(snapper => snapper.Configure(o => (o.MaxPactAttempts, o.Promote) = (pactAttempts, promote)))
            .UseTransactions()); // orleans-txn: the peer's transactions start at this client
        var host = builder.Build();

        // Bounded beside the retry filter: a gateway endpoint that accepts the connection but is
        // no gateway (a silo port) holds the client's start for ever, with nothing to retry.
        using var bounded = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
        bounded.CancelAfter(ConnectPatience + TimeSpan.FromSeconds(2));
        try
        {
            await host.StartAsync(bounded.Token);
            return new ExternalCluster(host, connections, diagnostics);
        }
        catch (OperationCanceledException) when (bounded.IsCancellationRequested && !cancellationToken.IsCancellationRequested)
        {
            host.Dispose();
            throw new TimeoutException($"no gateway answered as an Orleans gateway within {(ConnectPatience + TimeSpan.FromSeconds(2)).TotalSeconds:0} s; give the SiloHosts' --gateway-port, not their --silo-port");
        }
        catch
        {
            host.Dispose();
            throw;
        }
    }

    /// <inheritdoc />
    public async ValueTask DisposeAsync()
    {
        // A client whose gateway died under it (a crash loop kills its silo) may still hold calls
        // that will never be answered: its stop gets a bound, so the run ends and reports.
        using var stopping = new CancellationTokenSource(StopPatience);
        try
        {
            await host.StopAsync(stopping.Token).WaitAsync(2 * StopPatience, CancellationToken.None);
        }
        catch (TimeoutException)
        {
            await diagnostics.WriteLineAsync($"warning: the Orleans client had not stopped {2 * StopPatience.TotalSeconds:0} s on; leaving it");
        }
        finally
        {
            host.Dispose();
        }
    }

    // How many of the gateways the client is connected to, as Orleans tells it.
    private sealed class GatewayConnections(IReadOnlyList<IPEndPoint> gateways)
    {
        private int connected = gateways.Count;

        public string? Lost => Volatile.Read(ref connected) > 0
            ? null
            : $"the Orleans client is connected to none of its gateways ({string.Join(",", gateways)}): the silos went";

        public void Count(int now) => Volatile.Write(ref connected, now);
    }
}
