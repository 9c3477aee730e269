using System.Collections.Immutable;
using System.Globalization;

namespace Snapper;

/// <summary>
/// Who was in the way of a transaction that aborted for a concurrency reason (wait-die, deadlock,
/// the hybrid check, a cascade, a wait that ran past its deadline): where it waited
/// (<see cref="Actor"/>), for what (<see cref="WaitedFor"/>), and the transactions or the batch it
/// waited for. Carried by <see cref="TransactionAbortedException.Blocker"/>, named in its message,
/// and counted by the actor's type in the <c>snapper.transactions.aborted</c> metric.
/// </summary>
/// <param name="Actor">The actor where the transaction waited, or whose call it waited for.</param>
/// <param name="WaitedFor">What it waited for there.</param>
/// <param name="Tids">The transactions in its way: the lock's holders, the transaction whose write it read, the PACT whose failure aborted its batch (empty when only a batch is known).</param>
/// <param name="Bid">The batch in its way (0 when none).</param>
[GenerateSerializer, Immutable]
public sealed record AbortBlocker(
    [property: Id(0)] ActorId Actor,
    [property: Id(1)] BlockedOn WaitedFor,
    [property: Id(2)] ImmutableArray<long> Tids,
    [property: Id(3)] long Bid)
{
    /// <summary>A lock of <paramref name="actor"/> held by <paramref name="holders"/>.</summary>
    internal static AbortBlocker Lock(ActorId actor, IEnumerable<long> holders) => new(actor, BlockedOn.Lock, [.. holders], 0);

    /// <summary>Batch <paramref name="bid"/> on <paramref name="actor"/>.</summary>
    internal static AbortBlocker Batch(ActorId actor, long bid) => new(actor, BlockedOn.Batch, [], bid);

    /// <summary>Transaction <paramref name="tid"/>, met on <paramref name="actor"/>.</summary>
    internal static AbortBlocker Transaction(ActorId actor, long tid) => new(actor, BlockedOn.Transaction, [tid], 0);

    /// <summary>The answer of a call to <paramref name="actor"/>.</summary>
    internal static AbortBlocker Call(ActorId actor) => new(actor, BlockedOn.Call, [], 0);

    /// <summary>Equal when every part is, the tids compared by value (an <see cref="ImmutableArray{T}"/> alone compares by reference).</summary>
    public bool Equals(AbortBlocker? other) =>
        other is not null && Actor == other.Actor && WaitedFor == other.WaitedFor && Bid == other.Bid
        && (Tids.IsDefaultOrEmpty ? other.Tids.IsDefaultOrEmpty : !other.Tids.IsDefault && Tids.SequenceEqual(other.Tids));

    /// <inheritdoc />
    public override int GetHashCode() => HashCode.Combine(Actor, WaitedFor, Bid, Tids.IsDefaultOrEmpty ? 0 : Tids[0]);

    /// <inheritdoc />
    public override string ToString()
    {
        var tids = string.Join(", ", Tids.Select(t => t.ToString(CultureInfo.InvariantCulture)));
        return WaitedFor switch
        {
            BlockedOn.Lock => Tids.IsDefaultOrEmpty ? $"the lock of {Actor}" : $"the lock of {Actor} held by {tids}",
            BlockedOn.Batch => Tids.IsDefaultOrEmpty ? $"batch {Bid} on {Actor}" : $"batch {Bid} on {Actor} (PACT {tids})",
            BlockedOn.Transaction => $"transaction {tids} on {Actor}",
            _ => $"the answer of a call to {Actor}",
        };
    }
}

/// <summary>What a transaction waited for when it aborted (<see cref="AbortBlocker.WaitedFor"/>).</summary>
[GenerateSerializer]
public enum BlockedOn
{
    /// <summary>An actor's lock, held by other transactions (an ACT under wait-die).</summary>
    Lock = 0,

    /// <summary>A PACT batch: scheduled before it on the actor, or, for a cascade, the batch that failed.</summary>
    Batch = 1,

    /// <summary>Another transaction: one whose uncommitted write it read and that aborted or was not decided in time.</summary>
    Transaction = 2,

    /// <summary>The answer of a call to the actor, which did not come while batches ran there.</summary>
    Call = 3,
}
