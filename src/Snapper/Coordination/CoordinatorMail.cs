namespace Snapper.Coordination;

/// <summary>
/// What a coordinator's own silo hands it in process (<see cref="CoordinatorInboxes"/>): NewPact
/// from the silo's client, or BatchComplete from an actor active on the silo.
/// </summary>
internal readonly record struct CoordinatorMail
{
    private CoordinatorMail(PendingPact? pact, long bid, ActorId actor) => (Pact, Bid, Actor) = (pact, bid, actor);

    /// <summary>NewPact: the PACT waiting for the token; null for a BatchComplete.</summary>
    public PendingPact? Pact { get; }

    /// <summary>BatchComplete: the batch that completed on <see cref="Actor"/>.</summary>
    public long Bid { get; }

    /// <summary>BatchComplete: the actor it completed on.</summary>
    public ActorId Actor { get; }

    public static CoordinatorMail NewPact(PendingPact pact) => new(pact, 0, default);

    public static CoordinatorMail BatchComplete(long bid, ActorId actor) => new(null, bid, actor);
}
