using System.Net;
using System.CommandLine;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans.Configuration;
using SiloHost;
using ListAppend;
using SmallBank;
using Snapper.Configuration;
using Snapper.LoadGen.Cluster;
using Snapper.LoadGen.Options;

// SiloHost: one Orleans silo with Snapper and the samples' actors. Exit codes: 0 stopped cleanly,
// 1 the silo failed or a service a flag names did not answer, 2 a usage error or a port in use
// (one line naming the flag).
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
if (await Unreachable(options) is { } unreachable)
{
    Console.Error.WriteLine($"error: {unreachable.Line}");
    return unreachable.ExitCode;
}

var builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true, Args = [] });
builder.Logging.ClearProviders();
var log = new SiloHostLog(Console.Error, options.Verbose);
builder.Logging.AddProvider(log);
builder.Logging.SetMinimumLevel(LogLevel.Warning);
builder.Logging.AddFilter("Snapper", LogLevel.Information);
builder.Logging.AddFilter("Snapper.Recovery.StateHandoff", LogLevel.Warning); // a grain service: Orleans logs its start, stop and ring range at Information
builder.Services.Configure<ConsoleLifetimeOptions>(o => o.SuppressStatusMessages = true);

// SIGTERM drains what can finish, then goes: a graceful stop hands its actors on in about a
// second under load; one that is not done in 3 s ends as a crash would (the other silos fail it
// over from its logs), not at the host's default 30 s.
var stopPatience = TimeSpan.FromSeconds(3);
builder.Services.Configure<HostOptions>(o => o.ShutdownTimeout = stopPatience);
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

    if (options.FastMembership)
    {
        silo.Configure<ClusterMembershipOptions>(MembershipTiming.Fast).Configure<GrainDirectoryOptions>(MembershipTiming.Fast);
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
        .AddOrleansTxnSmallBank(TimeSpan.FromMilliseconds(options.LogDelayMs), options.OrleansLockTimeoutMs is { } ms ? TimeSpan.FromMilliseconds(ms) : null) // LoadGen's orleans-txn modes
        .AddTransferNotices() // the samples' after-commit handlers (LoadGen --after-commit)
        .AddAppendedJournal(options.AfterCommitJournal);
    if (options.Logger == "azure-table")
    {
        silo.AddSnapperAzureTableLogStorage(o => (o.ConnectionString, o.TableName) = (options.Connection!, options.Table!));
    }
}

using var host = builder.Build();

// A silo joining through --primary starts in a second or two. Pointed at something that accepts
// connections but is no silo port (the primary's gateway port, a web server), Orleans would wait
// for its join for minutes: bounded, and said.
var joinPatience = TimeSpan.FromSeconds(12);
using var joining = new CancellationTokenSource(options.Primary is null ? Timeout.InfiniteTimeSpan : joinPatience);
try
{
    await host.StartAsync(joining.Token);
}
catch (OperationCanceledException) when (joining.IsCancellationRequested && options.Primary is { } notASilo)
{
    log.StartFailed();
    Console.Error.WriteLine($"error: --primary {notASilo}: no silo there let this one join within {joinPatience.TotalSeconds:0} s; give the primary's --silo-port (not its gateway port).");
    return 1;
}
catch (Exception e)
{
    log.StartFailed();
    Console.Error.WriteLine($"error: silo {options.Name} failed to start: {StartFailure.Describe(e, options.Logger == "file" ? options.LogDirectory?.FullName : null, $"is a silo with --name {options.Name} already running?")}{(options.Verbose ? "" : " (--verbose for its log)")}");
    return 1;
}

log.Serving();

var role = options.Clustering == "redis" ? $"redis clustering at {options.Redis}" : options.Primary is { } primary ? $"joined {primary}" : "primary";
var address = options.Clustering == "redis" ? options.Advertise!.ToString() : "127.0.0.1";
Console.WriteLine($"SiloHost {options.Name} serving: silo {address}:{options.SiloPort}, gateway {address}:{options.GatewayPort}, {role}, cluster '{ClusterNames.Id}', logger {options.Logger}{(options.LogDirectory is { } dir ? $" in {dir.FullName}" : "")}");
using var stopping = host.Services.GetRequiredService<IHostApplicationLifetime>().ApplicationStopping.Register(log.Stopping);
await host.WaitForShutdownAsync();
Console.WriteLine($"SiloHost {options.Name} stopped{StopRemarks(log, stopPatience)}");
return 0;

// What the flags name outside this process, checked before Orleans starts (its own retries would
// take minutes and print stack traces): a port in use is a bad flag (exit 2), a peer that does not
// answer within ServiceProbes.Patience an unreachable service (exit 1).
static async Task<(string Line, int ExitCode)?> Unreachable(SiloHostOptions options)
{
    var listenOn = options.Clustering == "redis" && !IPAddress.IsLoopback(options.Advertise!) ? IPAddress.Any : IPAddress.Loopback;
    foreach (var (flag, port) in (ReadOnlySpan<(string, int)>)[("--silo-port", options.SiloPort), ("--gateway-port", options.GatewayPort)])
    {
        if (ServiceProbes.ListenProblem(listenOn, port) is { } inUse)
        {
            return ($"{flag} {port}: {inUse}; give another port.", 2);
        }
    }

    if (options.Primary is { } primary && await ServiceProbes.TcpProblemAsync(primary, CancellationToken.None) is { } noPrimary)
    {
        return ($"--primary {primary}: {noPrimary}; start the primary SiloHost first.", 1);
    }

    if (options.Redis is { } redis && await ServiceProbes.TcpProblemAsync(OptionChecks.Endpoint(redis), CancellationToken.None) is { } noRedis)
    {
        return ($"--redis {redis}: {noRedis}.", 1);
    }

    if (options.Logger == "azure-table" && await ServiceProbes.AzureTableProblemAsync(options.Connection!, CancellationToken.None) is { } noTables)
    {
        return ($"--connection: {noTables}.", 1);
    }

    return null;
}

// What the last line adds to "stopped": that the host's bound cut the stop short (the other silos
// fail over what it had not handed on, as after a crash), and how many of Orleans' lines it left out.
static string StopRemarks(SiloHostLog log, TimeSpan stopPatience) => (log.CutShort, log.Undelivered) switch
{
    (0, 0) => "",
    (0, var undelivered) => $" ({undelivered} log lines about messages to grains already gone and slow stages of its stop left out; --verbose shows them)",
    var (cut, undelivered) => $" (cut short at its {stopPatience.TotalSeconds:0} s bound with grains still deactivating: the other silos fail it over from its logs; {cut + undelivered} of Orleans' log lines about it left out, --verbose shows them)",
};
