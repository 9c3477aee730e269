namespace Snapper.Scheduling;

/// <summary>Where an aborted PACT stood on an actor when its abort arrived (<see cref="LocalSchedule.AbortPact"/>).</summary>
internal enum PactStanding : byte
{
    /// <summary>Nothing of it is here: its batch was aborted or resolved here, it is not declared here, or its turn is skipped (not reached yet).</summary>
    Gone = 1,

    /// <summary>A call of it still runs here: its turn ends, and its writes are undone, when the last one returns.</summary>
    Running = 2,

    /// <summary>Its turn here ended before the abort, in the batch still running here: its writes may have been read since.</summary>
    TurnEnded = 3,

    /// <summary>Its batch completed here before the abort: its writes are in the state that batch left.</summary>
    BatchCompleted = 4,
}
