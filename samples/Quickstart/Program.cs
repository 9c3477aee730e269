using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Quickstart;
using Snapper;

// One process: an Orleans silo with Snapper. Its ISnapperClient starts transactions (a cluster
// client with AddSnapper() would do the same from another process).
var builder = Host.CreateApplicationBuilder(args);
builder.Logging.SetMinimumLevel(LogLevel.Warning);
builder.Logging.AddConsole(o => o.LogToStandardErrorThreshold = LogLevel.Trace); // log lines to stderr, the program's output to stdout
builder.UseOrleans(silo => silo.UseLocalhostClustering().AddSnapper());
using var host = builder.Build();
await host.StartAsync();

var snapper = host.Services.GetRequiredService<ISnapperClient>();
var (alice, bob) = (ActorId.Create<IAccount>("alice"), ActorId.Create<IAccount>("bob"));

// ACT: the actors are found while it runs.
await snapper.RunAct<IAccount>(alice, (account, ctx) => account.Transfer(ctx, bob, 30m));
Console.WriteLine("ACT  alice -> bob 30: committed");

// PACT: the actors (and how often each is called) are declared up front.
await snapper.RunPact<IAccount>(bob, (account, ctx) => account.Transfer(ctx, alice, 10m), AccessSet.Of(bob).And(alice));
Console.WriteLine("PACT bob -> alice 10: committed");

try
{
    await snapper.RunAct<IAccount>(alice, (account, ctx) => account.Transfer(ctx, bob, 1000m));
}
catch (TransactionAbortedException aborted)
{
    Console.WriteLine($"ACT  alice -> bob 1000: aborted ({aborted.Reason}: {aborted.Detail})");
}

var aliceBalance = await snapper.RunAct<IAccount, decimal>(alice, (account, ctx) => account.Read(ctx));
var bobBalance = await snapper.RunAct<IAccount, decimal>(bob, (account, ctx) => account.Read(ctx));
Console.WriteLine($"alice {aliceBalance}, bob {bobBalance}");

await host.StopAsync();
