using System.Collections.Immutable;
using Snapper.Logging;

namespace Snapper.Coordination;

/// <summary>
/// What a coordinator's own silo hands it in process (<see cref="CoordinatorInboxes"/>): NewPact
/// from the silo's client, or BatchComplete from an actor active on the silo.
/// </summary>
internal readonly record struct CoordinatorMail
{
    private CoordinatorMail(PendingPact? pact, long bid, ActorId actor, ImmutableArray<AfterCommitAction> actions, long sequenced) => (Pact, Bid, Actor, Actions, Sequenced) = (pact, bid, actor, actions, sequenced);

    /// <summary>NewPact: the PACT waiting for the token; null for a BatchComplete.</summary>
    public PendingPact? Pact { get; }

    /// <summary>BatchComplete: the batch that completed on <see cref="Actor"/>.</summary>
    public long Bid { get; }

    /// <summary>BatchComplete: the actor it completed on.</summary>
    public ActorId Actor { get; }

    /// <summary>BatchComplete: the after-commit actions the batch's PACTs registered on <see cref="Actor"/>.</summary>
    public ImmutableArray<AfterCommitAction> Actions { get; }

    /// <summary>
    /// BatchComplete: 0 if the actor's BatchComplete record is durable; else its sequence number in
    /// the log the coordinator writes too, where it is queued but maybe not written yet (the
    /// coordinator's BatchCommit then names it: <see cref="Logging.LogWriter.AppendAfter"/>).
    /// </summary>
    public long Sequenced { get; }

    public static CoordinatorMail NewPact(PendingPact pact) => new(pact, 0, default, [], 0);

    public static CoordinatorMail BatchComplete(long bid, ActorId actor, ImmutableArray<AfterCommitAction> actions, long sequenced = 0) => new(null, bid, actor, actions, sequenced);
}
