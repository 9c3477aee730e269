namespace Snapper.Scheduling;

/// <summary>Where an <see cref="ActGroup"/> is in an actor's local schedule.</summary>
internal enum ActGroupPhase : byte
{
    /// <summary>A batch before it has not completed here: its ACTs wait to be admitted.</summary>
    Waiting = 1,

    /// <summary>Every batch before it has completed here: its ACTs run, concurrently, under 2PL.</summary>
    Open = 2,
}
