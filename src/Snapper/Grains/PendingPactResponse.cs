using Orleans.Serialization.Invocation;
using Snapper.Protocol;

namespace Snapper.Grains;

/// <summary>
/// PACT root → the caller of its first call: the PACT ran, but the root's activation is going
/// (deactivated or migrated) before its batch was decided, and it can no longer wait there. The
/// caller's <see cref="ExecutionInfoCallFilter"/> asks the root's next activation for the outcome
/// (<see cref="ISnapperParticipant.AwaitPact"/>) and then answers with the result inside, or the abort.
/// </summary>
/// <remarks>A caller without the filter cannot settle it and reads the transaction as in doubt.</remarks>
[GenerateSerializer]
internal sealed class PendingPactResponse : Response
{
    [Id(0)]
    private Response inner = Completed;

    [Id(1)]
    public long Tid { get; private set; }

    [Id(2)]
    public long Bid { get; private set; }

    [Id(3)]
    public ActorId Root { get; private set; }

    /// <summary>The coordinator that emitted the batch: it knows how the batch ended, or the failover does.</summary>
    [Id(4)]
    public string Coordinator { get; private set; } = "";

    public static PendingPactResponse Create(Response inner, long tid, long bid, string coordinator, ActorId root) =>
        new() { inner = inner, Tid = tid, Bid = bid, Coordinator = coordinator, Root = root };

    /// <summary>The root's own answer, to be given once the PACT is known to have committed.</summary>
    public Response Inner => inner;

    public override object? Result
    {
        get => throw InDoubt();
        set => inner.Result = value;
    }

    // Null, as ExecutionInfoResponse's: Orleans' invokers throw a response's exception before the
    // caller's filter could settle it. A caller without the filter reads the result and is told.
    public override Exception? Exception
    {
        get => null;
        set => inner.Exception = value;
    }

    public override T GetResult<T>() => throw InDoubt();

    public override void Dispose() => inner.Dispose();

    public override string ToString() => $"PACT {Tid} pending on {Root}: {inner}";

    private TransactionInDoubtException InDoubt() =>
        new(Tid, $"its root {Root} moved before the batch was decided, and this caller cannot ask the next activation");
}
