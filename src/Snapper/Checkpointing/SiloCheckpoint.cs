using Microsoft.Extensions.Logging;
using Orleans.Concurrency;
using Snapper.Diagnostics;
using Snapper.Logging;
using Snapper.Grains;
using Snapper.Protocol;
using Snapper.Recovery;

namespace Snapper.Checkpointing;

/// <summary>Does this silo's part of a checkpoint round (<see cref="ISiloCheckpoint"/>) with its loggers and actors.</summary>
[Reentrant]
[SiloBoundPlacement]
internal sealed class SiloCheckpoint(LogWriterPool logs, ActiveActors active, ActorResolver actors, ILogStorage storage, StatesAtRest atRest, ILogger<SiloCheckpoint> diagnostics) : SiloBoundGrain, ISiloCheckpoint
{
    /// <summary>The key of silo <paramref name="silo"/>'s checkpoint grain.</summary>
    public static string KeyOf(string silo) => $"{silo}/checkpoint";

    public async Task<long[]> Seal(long round)
    {
        // Before any seal: a log that begins with one is read only beside a store with this mark.
        await atRest.MarkCheckpointed(round, CancellationToken.None);
        return await Task.WhenAll(logs.All.Select(logger => logger.Seal(new CheckpointSealRecord(round))));
    }

    public Task Settle(SettleStep step, DateTimeOffset until) =>
        Task.WhenAll(active.Ids.ToArray().Select(actor => actors.Participant(actor).Settle(step, until)));

    public Task<bool> Quiet() => Task.FromResult(logs.All.All(logger => logger.QuietSinceSeal));

    public Task Flush() => Task.WhenAll(logs.All.Select(logger => logger.Flush()));

    public async Task<CheckpointReport> Write(long round)
    {
        if (!logs.Enabled)
        {
            return new CheckpointReport(round, 1, 0, 0, 0, 0); // this silo logs nothing: nothing of its own to truncate
        }

        var own = logs.All.Select(l => l.Name).ToHashSet(StringComparer.Ordinal);
        // Reading every log is CPU work for each record since the last round (seconds after a
        // minute of heavy load), and with storage whose reads complete synchronously (in memory)
        // it would all run in this grain's turn, holding a scheduler thread that long: run it on
        // the thread pool instead. It touches only the storage, which takes concurrent readers.
        var content = await Task.Run(() => CheckpointContent.ReadAsync(round, storage, own, CancellationToken.None));
        if (content.SealedRecords == 0)
        {
            return new CheckpointReport(round, 1, content.RecordsRead, 0, 0, 0);
        }

        var first = logs.All[0];
        var bytesBefore = logs.All.Sum(l => l.CheckpointBytes);
        foreach (var (actor, state) in content.AtRest)
        {
            if (state.OnBaseAtRest && !atRest.Enabled)
            {
                // Without a store every round restated whole states: changes without one lost records.
                throw new InvalidDataException($"The logs hold changes to actor {actor}'s state with no whole state before them and there is no store of states at rest: records are missing.");
            }
        }

        var (states, rowBytes, inLog) = atRest.Enabled ? await ToStore(round, content.AtRest) : (content.States.Count, 0L, content.States);
        var writes = inLog.Select(state => logs.For(state.Actor)!.AppendCheckpoint(state))
            .Concat(content.Decisions.Select(first.AppendCheckpoint))
            .Concat(content.Actions.Select(first.AppendCheckpoint))
            .Append(first.AppendCheckpoint(content.MaxTid));
        await Task.WhenAll(writes);
        return new CheckpointReport(round, 1, content.RecordsRead, content.SealedRecords, states, content.Decisions.Sum(d => d.Acts.Length + d.Batches.Length), logs.All.Sum(l => l.CheckpointBytes) - bytesBefore + rowBytes);
    }

    // The states the sealed parts held go to the actors' rows, merged with what rests there: a row
    // as new (an activation that went wrote it) is left alone, an older one gives a state that rests
    // on it its whole state, and its sequence and what else rests with it stay (CommittedState.Merge).
    // An actor whose row does not read, or whose logged changes rest on a state older than its row,
    // keeps them in the log, restated, as without a store: its activation is refused either way
    // until someone mends the row, but one actor does not stop every silo's truncation.
    // Returns how many rows were written, their bytes, and the records restated in the log.
    private async Task<(long Rows, long Bytes, IReadOnlyList<CommitRecord> InLog)> ToStore(long round, IReadOnlyDictionary<ActorId, CommittedState> sealedStates)
    {
        var actors = sealedStates.Keys.ToList();
        var rows = await atRest.ReadMany(actors, CancellationToken.None);
        var newer = new List<(ActorId Actor, CommittedState State)>();
        var inLog = new List<CommitRecord>();
        for (var i = 0; i < actors.Count; i++)
        {
            var (actor, logged, (row, error)) = (actors[i], sealedStates[actors[i]], rows[i]);
            if (row is { } held && held.Version >= logged.Version)
            {
                continue;
            }

            var state = row is { } older ? CommittedState.Merge(logged, older) : logged;
            if (error is not null || state.OnBaseAtRest)
            {
                LogMessages.StateKeptInLog(diagnostics, round, actor, error?.Message ?? $"its logged changes from version {state.WholeVersion + 1} rest on a state the store does not hold (it holds {(row is { } r ? $"version {r.Version}" : "none")}): records are missing");
                inLog.AddRange(CheckpointContent.StateRecords(round, actor, logged));
                continue;
            }

            newer.Add((actor, state));
        }

        return (newer.Count, newer.Count == 0 ? 0 : await atRest.Store(newer, CancellationToken.None), inLog);
    }

    public Task Truncate(long[] marks) =>
        Task.WhenAll(logs.All.Select((logger, i) => i < marks.Length ? logger.Truncate(marks[i]) : Task.CompletedTask));
}
