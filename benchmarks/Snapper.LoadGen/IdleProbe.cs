using System.Diagnostics;
using SmallBank;
using Snapper.LoadGen.Options;
using Snapper.LoadGen.Cluster;

using Snapper.LoadGen.Measurement;

namespace Snapper.LoadGen;

/// <summary>
/// <c>LoadGen idle [--duration S]</c>: starts the embedded silo, runs one PACT and one ACT so the
/// coordinator ring and the loggers have worked, then measures the process's CPU time while
/// nothing runs. An idle ring must park its token instead of spinning a core.
/// </summary>
public static class IdleProbe
{
    // At most this long (seconds) for the JIT to settle before measuring, and how many quiet seconds in a row count as settled.
    private const int SettleLimit = 60;
    private const int QuietSeconds = 5;

    /// <summary>Runs the probe; returns the exit code.</summary>
    public static async Task<int> RunAsync(double seconds, TextWriter stdout, TextWriter stderr, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(stdout);
        await using var silo = await EmbeddedCluster.StartAsync(new LoadGenOptions(), stderr, cancellationToken);
        var (a, b) = (ActorId.Create<IAccountActor>(0), ActorId.Create<IAccountActor>(1));
        await silo.Client.RunPact<IAccountActor>(a, (x, ctx) => x.SendPayment(ctx, b, 1m), AccessSet.Of(a).And(b), cancellationToken);
        await silo.Client.RunAct<IAccountActor, decimal>(ActorId.Create<IAccountActor>(2), (x, ctx) => x.Balance(ctx), cancellationToken);
        await Task.Delay(TimeSpan.FromSeconds(1), cancellationToken); // let the token finish its idle lap

        // The tiered JIT goes on compiling in the background for the first tens of seconds of a
        // process: that is start-up, not idling. As for the modes' warm-up, wait (a second at a
        // time, at most SettleLimit) until it compiled for less than 1% of a core in each of
        // QuietSeconds seconds in a row (at idle it compiles in bursts, as timers call methods).
        var settling = new JitSettling();
        var (waited, quiet) = (1, 0);
        while (waited < SettleLimit && quiet < QuietSeconds)
        {
            await Task.Delay(TimeSpan.FromSeconds(1), cancellationToken);
            waited++;
            quiet = settling.StillCompiling() ? 0 : quiet + 1;
        }

        var process = Process.GetCurrentProcess();
        var before = process.TotalProcessorTime;
        await Task.Delay(TimeSpan.FromSeconds(seconds), cancellationToken);
        process.Refresh();
        var used = process.TotalProcessorTime - before;
        await stdout.WriteLineAsync(FormattableString.Invariant(
            $"idle: {used.TotalMilliseconds:F0} ms of CPU in {seconds:0.#} s = {100 * used.TotalSeconds / seconds:F2}% of one core (whole process, ring and loggers included), measured from {waited} s after the last transaction, once the JIT had settled"));
        return ExitCodes.Ok;
    }
}
