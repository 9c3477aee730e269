using System.Net;
using System.CommandLine;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans.Configuration;
using SiloHost;
using SmallBank;
using Snapper.Configuration;

// SiloHost: one Orleans silo with Snapper and the samples' actors. Exit codes: 0 stopped cleanly,
// 1 the silo failed, 2 a usage error (one line naming the flag).
var parsed = CommandLine.Create().Parse(args);
if (parsed.Tokens.Any(t => t.Value is "--help" or "-h" or "-?" or "--version"))
{
    return await parsed.InvokeAsync(); // help and version come from the same definitions
}

var problems = Snapper.LoadGen.Options.UsageErrors.Describe(parsed) is { } error ? [error] : CommandLine.Problems(parsed);
if (problems.Count > 0)
{
    foreach (var problem in problems)
    {
        Console.Error.WriteLine($"error: {problem}");
    }

    Console.Error.WriteLine(Snapper.LoadGen.Options.UsageErrors.HelpHint(parsed));
    return 2;
}

var options = CommandLine.Options(parsed);
var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true, Args = [] });
builder.Logging.ClearProviders();
// Log lines go to stderr: stdout carries only what SiloHost itself says (one line when it serves).
builder.Logging.AddConsole(o => o.LogToStandardErrorThreshold = LogLevel.Trace);
builder.Logging.AddSimpleConsole(o => (o.SingleLine, o.TimestampFormat) = (true, "HH:mm:ss "));
builder.Logging.SetMinimumLevel(LogLevel.Warning);
builder.Logging.AddFilter("Snapper", LogLevel.Information);
builder.Services.Configure<ConsoleLifetimeOptions>(o => o.SuppressStatusMessages = true);
builder.UseOrleans(silo =>
{
    if (options.Clustering == "redis")
    {
        // Membership in Redis: every silo (and nothing else) finds the others there.
        silo.UseRedisClustering(options.Redis!)
            .Configure<ClusterOptions>(o => (o.ClusterId, o.ServiceId) = (ClusterNames.Id, ClusterNames.Id))
            .ConfigureEndpoints(options.Advertise!, options.SiloPort, options.GatewayPort, listenOnAnyHostAddress: !IPAddress.IsLoopback(options.Advertise!));
    }
    else
    {
        silo.UseLocalhostClustering(options.SiloPort, options.GatewayPort, options.Primary, serviceId: ClusterNames.Id, clusterId: ClusterNames.Id);
    }

    ConfigureSilo(silo);
});

void ConfigureSilo(ISiloBuilder silo)
{
    silo
        .Configure<SiloOptions>(o => o.SiloName = options.Name)
        .AddSnapper(snapper => snapper.Configure(o =>
        {
            o.Logging = options.Logger switch
            {
                "none" => LoggingMode.None,
                "file" => LoggingMode.File,
                _ => LoggingMode.RegisteredStorage,
            };
            o.LogDirectory = options.LogDirectory?.FullName;
            o.LogWriteDelay = TimeSpan.FromMilliseconds(options.LogDelayMs);
            o.CheckpointInterval = TimeSpan.FromSeconds(options.CheckpointIntervalSeconds);
        }))
        .AddOrleansTxnSmallBank(TimeSpan.FromMilliseconds(options.LogDelayMs), options.OrleansLockTimeoutMs is { } ms ? TimeSpan.FromMilliseconds(ms) : null); // LoadGen's orleans-txn modes
    if (options.Logger == "azure-table")
    {
        silo.AddSnapperAzureTableLogStorage(o => (o.ConnectionString, o.TableName) = (options.Connection!, options.Table!));
    }
}

using var host = builder.Build();
try
{
    await host.StartAsync();
}
catch (Exception e)
{
    Console.Error.WriteLine($"error: silo {options.Name} failed to start: {e.Message}");
    return 1;
}

var role = options.Clustering == "redis" ? $"redis clustering at {options.Redis}" : options.Primary is { } primary ? $"joined {primary}" : "primary";
var address = options.Clustering == "redis" ? options.Advertise!.ToString() : "127.0.0.1";
Console.WriteLine($"SiloHost {options.Name} serving: silo {address}:{options.SiloPort}, gateway {address}:{options.GatewayPort}, {role}, cluster '{ClusterNames.Id}', logger {options.Logger}{(options.LogDirectory is { } dir ? $" in {dir.FullName}" : "")}");
await host.WaitForShutdownAsync();
Console.WriteLine($"SiloHost {options.Name} stopped");
return 0;
