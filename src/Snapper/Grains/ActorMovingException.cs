namespace Snapper.Grains;

/// <summary>
/// Actor → caller: the actor's activation is going (deactivated or migrated) and the call had not
/// started there; send it again, and it reaches the next activation. Never reaches user code:
/// <c>CallActor</c> and the client send the call again.
/// </summary>
[GenerateSerializer]
internal sealed class ActorMovingException : Exception
{
    public ActorMovingException(ActorId actor)
        : base($"actor {actor} is moving to a new activation; the call is sent again")
    {
    }
}
