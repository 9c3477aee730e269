namespace Snapper.Act;

/// <summary>
/// The paper's TxnExeInfo (Snapper §4.3.3, Fig. 3c): which actors an ACT reached and what each did,
/// carried back along the call chain to the root so it can run 2PC with exactly those actors.
/// It also carries the first failure seen, so that a failure caught by user code in a nested call
/// still aborts the whole transaction.
/// </summary>
internal sealed class ExecutionInfo
{
    private readonly Dictionary<ActorId, ParticipantRole> participants = new();

    public IReadOnlyDictionary<ActorId, ParticipantRole> Participants => participants;

    /// <summary>The first exception raised anywhere in the call tree, or null.</summary>
    public Exception? Failure { get; private set; }

    public void Add(ActorId actor, ParticipantRole role)
    {
        if (!participants.TryGetValue(actor, out var known) || role > known)
        {
            participants[actor] = role;
        }
    }

    public void Merge(ExecutionInfo other)
    {
        foreach (var (actor, role) in other.participants)
        {
            Add(actor, role);
        }

        Failure ??= other.Failure;
    }

    public void Fail(Exception failure) => Failure ??= failure;

    /// <summary>A copy to hand to the caller: what this actor learned plus its own role.</summary>
    public ExecutionInfo Snapshot(ActorId self, ParticipantRole selfRole)
    {
        var copy = new ExecutionInfo();
        copy.Merge(this);
        copy.Add(self, selfRole);
        return copy;
    }
}
