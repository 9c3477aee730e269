using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Snapper.Hosting;
using Snapper.LoadGen.Options;

namespace Snapper.LoadGen.Silo;

/// <summary>
/// The Snapper silo in this process: a generic host with Snapper, the SmallBank actors, the list-append actor and the TPC-C actors. There
/// is no external cluster (the Orleans packages cannot be restored here), so every mode runs
/// against this one host, one after another.
/// </summary>
public sealed class EmbeddedSilo : IAsyncDisposable
{
    private readonly IHost host;
    private readonly bool deleteLogDirectory;

    private EmbeddedSilo(IHost host, string? logDirectory, bool deleteLogDirectory)
    {
        this.host = host;
        this.deleteLogDirectory = deleteLogDirectory;
        LogDirectory = logDirectory;
        Client = host.Services.GetRequiredService<ISnapperClient>();
    }

    /// <summary>The file logger's directory, when <c>--logger file</c>.</summary>
    public string? LogDirectory { get; }

    /// <summary>Bytes the file logger has on disk now (0 without a file logger).</summary>
    public long LogBytes() =>
        LogDirectory is not null && Directory.Exists(LogDirectory)
            ? new DirectoryInfo(LogDirectory).EnumerateFiles("*", SearchOption.AllDirectories).Sum(f => f.Length)
            : 0;

    /// <summary>The client transactions and plain calls are issued through.</summary>
    public ISnapperClient Client { get; }

    /// <summary>Builds and starts the silo <paramref name="options"/> describe.</summary>
    /// <param name="options">The logger kind is taken from here.</param>
    /// <param name="diagnostics">Where the runtime's warnings and errors go (stderr): stdout is for the results.</param>
    /// <param name="cancellationToken">Cancels the start.</param>
    public static async Task<EmbeddedSilo> StartAsync(LoadGenOptions options, TextWriter diagnostics, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(diagnostics);

        // No defaults: no appsettings or environment configuration changing a benchmark behind
        // its command line, and no console logger on stdout.
        var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        builder.Services.AddSingleton<IHostLifetime, EmbeddedSiloLifetime>();

        // Warnings only: the runtime logs every actor activation at Information, which would be
        // thousands of lines per run.
        builder.Logging.ClearProviders();
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        builder.Logging.AddProvider(new TextWriterLoggerProvider(diagnostics));

        var logDirectory = options.Logger == LoggerKind.File
            ? options.LogDir ?? Path.Combine(Path.GetTempPath(), $"snapper-loadgen-{Environment.ProcessId}-{Guid.NewGuid():N}")
            : null;
        // A real Orleans silo in this process, on loopback ports the OS hands out (a second
        // LoadGen, or a SiloHost on the default ports, may be running).
        builder.UseOrleans(silo => silo
            .UseLocalhostClustering(FreePort(), FreePort(), serviceId: "snapper-loadgen", clusterId: $"loadgen-{Environment.ProcessId}")
            .AddSnapper(snapper => snapper.Configure(o =>
            {
                o.Logging = options.Logger switch
                {
                    LoggerKind.None => LoggingMode.None,
                    LoggerKind.File => LoggingMode.File,
                    _ => LoggingMode.Memory,
                };
                o.LogDirectory = logDirectory;
                o.LogWriteDelay = TimeSpan.FromMilliseconds(options.LogDelayMs);
            })));

        var host = builder.Build();
        try
        {
            await host.StartAsync(cancellationToken);
            return new EmbeddedSilo(host, logDirectory, deleteLogDirectory: logDirectory is not null && options.LogDir is null);
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
        try
        {
            await host.StopAsync(CancellationToken.None);
        }
        finally
        {
            if (host is IAsyncDisposable asyncDisposable)
            {
                await asyncDisposable.DisposeAsync();
            }
            else
            {
                host.Dispose();
            }

            if (deleteLogDirectory && LogDirectory is not null && Directory.Exists(LogDirectory))
            {
                Directory.Delete(LogDirectory, recursive: true);
            }
        }
    }

    private static int FreePort()
    {
        using var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        return ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
    }
}
