using Orleans.Serialization.Invocation;

namespace Snapper.Grains;

/// <summary>
/// Client side: the first run of a PACT run in place of an ACT (ActOptions.Promote), placed in a
/// batch only as its first call is sent, so its declaration can take in the actors that call's
/// arguments name (<see cref="NamedActors"/>) besides what it already declares. The body gets
/// a start context carrying this placement; <see cref="ExecutionInfoCallFilter"/> places it and
/// sends the call with the placed context instead.
/// </summary>
internal sealed class StartPlacement(ActorId first, AccessSet declared, Func<ActorId, bool> transactional, Func<AccessSet, Task<TxnContext>> place) : IPlacedOnSend
{
    /// <summary>The actor the transaction starts on.</summary>
    public ActorId First => first;

    /// <summary>The context the call was sent with, once placed.</summary>
    public TxnContext? Placed { get; private set; }

    /// <summary>Places the PACT declaring what <paramref name="request"/> names too; the start context to send.</summary>
    public async Task<TxnContext> Place(IInvokable request)
    {
        var placed = await place(NamedActors.Declare(declared, NamedActors.AfterContext(request), transactional));
        return Placed = placed with { Start = true, Promoted = true };
    }
}
