namespace Snapper.Checkpointing;

/// <summary>What a checkpoint round did, on one silo or summed over the cluster.</summary>
/// <param name="Round">The round (unique: its start time in ticks).</param>
/// <param name="Silos">The silos whose logs it checkpointed.</param>
/// <param name="RecordsRead">Log records read (each silo reads every log of the storage).</param>
/// <param name="RecordsSealed">Records of the silos' own logs before the round's seal: those it truncates.</param>
/// <param name="States">Actors' committed states written: rows of the store of states at rest, or (without one) records.</param>
/// <param name="Decisions">Committed ACTs and batches written.</param>
/// <param name="Bytes">Bytes of the records written (states, decisions, actions owed, the highest tid) and of the rows.</param>
/// <param name="Settling">Seconds the round's settle steps took (every active actor waits for its transactions).</param>
/// <param name="Writing">Seconds the round's write step took (reading the logs, writing rows and records).</param>
[GenerateSerializer, Immutable]
internal sealed record CheckpointReport(
    [property: Id(0)] long Round,
    [property: Id(1)] int Silos,
    [property: Id(2)] long RecordsRead,
    [property: Id(3)] long RecordsSealed,
    [property: Id(4)] long States,
    [property: Id(5)] long Decisions,
    [property: Id(6)] long Bytes = 0,
    [property: Id(7)] double Settling = 0,
    [property: Id(8)] double Writing = 0)
{
    /// <summary>The sum of the silos' reports of one round.</summary>
    public static CheckpointReport Sum(long round, IReadOnlyCollection<CheckpointReport> silos) => new(
        round,
        silos.Count,
        silos.Sum(s => s.RecordsRead),
        silos.Sum(s => s.RecordsSealed),
        silos.Sum(s => s.States),
        silos.Sum(s => s.Decisions),
        silos.Sum(s => s.Bytes));
}
