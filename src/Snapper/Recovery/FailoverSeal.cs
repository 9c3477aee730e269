using Snapper.Logging;

namespace Snapper.Recovery;

/// <summary>
/// A silo's failover as the ring sealed it: the logs read once the ring was halted and every
/// surviving log flushed, so no batch decision can be added to them, and the bid through which the
/// dead silo's batches that did not commit abort (every bid handed out before the ring halted).
/// </summary>
/// <param name="Silo">The silo that departed.</param>
/// <param name="Through">The abort cascade of its uncommitted batches ends here.</param>
/// <param name="Evaluation">What the logs said (commit rules as at recovery).</param>
/// <param name="Prepared">Every Prepare record in them, by actor: writes that ACTs not committed then may still commit.</param>
internal sealed record FailoverSeal(string Silo, long Through, LogEvaluation Evaluation, ILookup<ActorId, PrepareRecord> Prepared)
{
    /// <summary>
    /// For an actor activating after the departure: its last committed state in the logs as the
    /// seal read them, and the states it prepared for ACTs not committed then, newer than that state.
    /// </summary>
    public (CommittedState? State, IReadOnlyList<PrepareRecord> Undecided) ForActivation(ActorId actor)
    {
        CommittedState? state = Evaluation.States.TryGetValue(actor, out var logged) ? logged : null;
        var version = state?.Version ?? 0;
        var undecided = Prepared[actor].Where(p => p.Version > version && !Evaluation.CommittedActs.Contains(p.Tid)).ToList();
        return (state, undecided);
    }
}
