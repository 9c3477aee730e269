using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Diagnostics;
using Snapper.Logging;
using Snapper.Outbox;
using Snapper.Configuration;

namespace Snapper.Recovery;

/// <summary>
/// Rebuilds committed state from the logs when the silo starts (Snapper §4.2.5, §4.3.4, §4.4.5).
/// </summary>
/// <remarks>
/// <para>It reads every Snapper log in the storage, those of every silo that ever logged there: an
/// actor may have been active on several silos, and may activate on this one now. What they say
/// (each actor's last committed state, under presumed abort) is <see cref="LogEvaluation"/>; a
/// checkpoint's records count like the ones they replaced.</para>
/// <para>The silo joins the ring with the highest tid and bid in the logs as the ring's tid floor,
/// so tids keep increasing across restarts.</para>
/// <para>First it claims its own logs (<see cref="LogWriterPool.ClaimAsync"/>): a log another
/// process writes, or one corrupt beyond a torn tail, fails the start before the silo serves, and
/// what a fenced earlier self of this silo appended past its fence is cut.</para>
/// </remarks>
internal sealed class LogRecovery(
    ILogStorage storage,
    LogWriterPool writers,
    IOptions<SnapperOptions> options,
    CommittedStates recovered,
    StatesAtRest atRest,
    AfterCommitOutbox outbox,
    ILogger<LogRecovery> diagnostics) : ILifecycleParticipant<ISiloLifecycle>
{
    /// <summary>Runs with the silo's application services, before the silo becomes active and grains serve calls.</summary>
    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(LogRecovery), ServiceLifecycleStage.ApplicationServices, StartAsync);

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        if (options.Value.Logging == LoggingMode.None)
        {
            return;
        }

        // This silo's own logs are its to write from now on (a second process on them is refused
        // here), and what a fenced earlier self of it appended is gone from them before they are read.
        await writers.ClaimAsync(cancellationToken);
        // An actor whose versions have a gap in what this read (a checkpoint moved them to the store
        // of states at rest, or, for a silo joining a running cluster, others appended while it
        // read) keeps what lies past it, to be completed when it activates (ActivationLoader).
        var (evaluation, records, checkpointed) = await LogEvaluation.ReadAsync(storage, cancellationToken);
        await atRest.CheckLogsCheckpointedHere(checkpointed, cancellationToken);

        recovered.SawTid(evaluation.MaxTid);
        foreach (var (actor, state) in evaluation.States)
        {
            recovered.Offer(actor, state);
        }

        LogMessages.Recovered(diagnostics, recovered.Count, records, recovered.MaxTid);

        // What this silo decided and did not deliver before it stopped or died: its own logs say
        // so, and nobody else delivers it (the failover delivers what a silo that does not come back owed).
        var own = writers.All.Select(w => w.Name).ToHashSet(StringComparer.Ordinal);
        var owed = evaluation.Owed.Where(o => o.Log is { } log && own.Contains(log)).Select(o => o.Action).ToList();
        if (owed.Count > 0)
        {
            LogMessages.AfterCommitOwedAtStart(diagnostics, owed.Count);
            outbox.Deliver(owed);
        }
    }

    /// <summary>
    /// Reads and decodes every Snapper log in <paramref name="storage"/> into memory (a failover's
    /// questions, tests); a record that does not decode stops it, naming the log. Start-up and
    /// checkpoints read the logs without holding them (<see cref="LogScan"/>).
    /// </summary>
    internal static async Task<List<(string Name, List<LogRecord> Records)>> ReadAllAsync(ILogStorage storage, CancellationToken cancellationToken)
    {
        var logs = new Dictionary<string, List<LogRecord>>(StringComparer.Ordinal);
        var counts = await LogScan.ForEachAsync(storage, null, (log, _, record) =>
        {
            if (!logs.TryGetValue(log, out var records))
            {
                logs[log] = records = [];
            }

            records.Add(LogRecordCodec.Decode(record));
        }, cancellationToken);

        // In the storage's order, empty logs included.
        return [.. counts.Keys.Select(log => (log, logs.GetValueOrDefault(log) ?? []))];
    }
}
