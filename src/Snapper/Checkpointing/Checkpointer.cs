using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Diagnostics;
using Snapper.Configuration;
using Snapper.Protocol;

namespace Snapper.Checkpointing;

/// <summary>
/// Runs the cluster's checkpoint rounds (<see cref="ICheckpointer"/>), one at a time, every
/// <see cref="SnapperOptions.CheckpointInterval"/>.
/// </summary>
/// <remarks>
/// <para>A round, each step on every active silo and all of one step before the next:</para>
/// <list type="number">
/// <item><b>Seal</b> every log; what came before the seal is the round's to truncate.</item>
/// <item><b>Settle writes</b>: every actor waits until each transaction it takes part in now is
/// decided there. Any Prepare or BatchComplete before a seal was made by such a transaction, so
/// afterwards its decision (if it committed) is in some log, and every ACT that read its state
/// early (a commit dependency) did so before this step ended.</item>
/// <item><b>Settle rooted ACTs</b>: every actor waits until the ACTs rooted there now have ended,
/// so every CoordCommit that names a dependency decided before the seals has been appended.</item>
/// <item><b>Flush</b> every logger: all of that is durable (or failed) before anyone reads.</item>
/// <item><b>Write</b>: each silo reads every log and writes what its sealed records said
/// (<see cref="CheckpointContent"/>): the states to the store of states at rest if there is one
/// (else after its seal, with the rest), the decisions and actions still needed after its seal;
/// and waits until that is durable.</item>
/// <item><b>Truncate</b> the sealed parts, only once every silo's checkpoint is durable.</item>
/// </list>
/// <para>So any record written after a round's reads that depends on a decision depends on one made
/// after the seals, whose record is not truncated; and a previous checkpoint's decisions in a sealed
/// part are needed by nothing that is kept. A step that fails or passes its deadline gives the round
/// up before anything is truncated; a crash anywhere leaves true records only (a checkpoint's
/// records restate what the sealed parts say), so recovery is exact at every point.</para>
/// </remarks>
[CollectionAgeLimit(AlwaysActive = true)]
internal sealed class Checkpointer(
    IClusterMembershipService cluster,
    IOptions<SnapperOptions> options,
    TimeProvider clock,
    SnapperMetrics metrics,
    ILogger<Checkpointer> diagnostics) : Grain, ICheckpointer
{
    /// <summary>How long a silo's write step may take (<see cref="ISiloCheckpoint.Write"/>), and so a round.</summary>
    internal const string WriteTimeout = "00:10:00";

    private IGrainTimer? timer;
    private bool lastRoundDone; // a round that failed after its seals must run again, idle or not

    /// <inheritdoc />
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield(); // never complete activation synchronously: see TransactionalActor.OnActivateAsync
        var interval = options.Value.CheckpointInterval;
        if (interval > TimeSpan.Zero && options.Value.Logging != LoggingMode.None)
        {
            timer = this.RegisterGrainTimer(RunOnSchedule, interval, interval);
        }

        await base.OnActivateAsync(cancellationToken);
    }

    public Task Ensure() => Task.CompletedTask;

    public async Task<CheckpointReport> Run()
    {
        var round = clock.GetUtcNow().UtcTicks;
        if (options.Value.Logging == LoggingMode.None)
        {
            return new CheckpointReport(round, 0, 0, 0, 0, 0);
        }

        var started = clock.GetTimestamp();
        try
        {
            var silos = ActiveSilos();
            var marks = await Task.WhenAll(silos.Select(silo => silo.Seal(round)));

            // A transaction waited for here ends by its own deadline at the latest; past twice that
            // something is stuck, and the round is given up rather than wait for ever.
            var until = clock.GetUtcNow() + (2 * options.Value.TransactionTimeout);
            var settling = clock.GetTimestamp();
            await Task.WhenAll(ActiveSilos().Select(silo => silo.Settle(SettleStep.Writes, until)));
            await Task.WhenAll(ActiveSilos().Select(silo => silo.Settle(SettleStep.RootedActs, until)));
            var settled = clock.GetElapsedTime(settling);
            await Task.WhenAll(ActiveSilos().Select(silo => silo.Flush()));
            var writing = clock.GetTimestamp();
            var written = await Task.WhenAll(silos.Select(silo => silo.Write(round)));
            var wrote = clock.GetElapsedTime(writing);
            await Task.WhenAll(silos.Select((silo, i) => silo.Truncate(marks[i])));
            var report = CheckpointReport.Sum(round, written) with { Settling = settled.TotalSeconds, Writing = wrote.TotalSeconds };
            LogMessages.CheckpointDone(diagnostics, round, report.Silos, report.RecordsRead, report.States, report.Decisions);
            metrics.CheckpointRound(clock.GetElapsedTime(started), done: true);
            lastRoundDone = true;
            return report;
        }
        catch (Exception e)
        {
            lastRoundDone = false;
            metrics.CheckpointRound(clock.GetElapsedTime(started), done: false);
            LogMessages.CheckpointFailed(diagnostics, e, round);
            throw;
        }
    }

    private async Task RunOnSchedule()
    {
        try
        {
            // An idle cluster has nothing new to checkpoint: a round would only seal every log and
            // restate its decisions again (and, without a store of states at rest, every actor's
            // state), once a minute for ever.
            // Quiet counts from the last seal, so only after a round that got through.
            var quiet = await Task.WhenAll(ActiveSilos().Select(silo => silo.Quiet()));
            if (lastRoundDone && quiet.All(q => q))
            {
                return;
            }

            await Run();
        }
        catch (Exception)
        {
            // Said by Run; the next tick tries again.
        }
    }

    private ISiloCheckpoint[] ActiveSilos() =>
        [.. cluster.CurrentSnapshot.Members.Values
            .Where(m => m.Status == SiloStatus.Active)
            .Select(m => GrainFactory.GetGrain<ISiloCheckpoint>(SiloCheckpoint.KeyOf(m.Name)))];
}
