using Snapper.Logging;
using Snapper.Recovery;

namespace Snapper.Failover;

/// <summary>
/// A silo's failover as the ring sealed it: the logs read once the ring was halted and every
/// surviving log flushed, so no batch decision can be added to them, and the bid through which the
/// dead silo's batches that did not commit abort (every bid handed out before the ring halted).
/// </summary>
/// <param name="Silo">The silo that departed.</param>
/// <param name="Through">The abort cascade of its uncommitted batches ends here.</param>
/// <param name="Evaluation">What the logs said (commit rules as at recovery).</param>
/// <param name="Prepared">Every Prepare record in them, by actor: writes that ACTs not committed then may still commit.</param>
internal sealed record FailoverSeal(string Silo, long Through, LogEvaluation Evaluation, ILookup<ActorId, PrepareRecord> Prepared);
