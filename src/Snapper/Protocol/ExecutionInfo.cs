using Snapper.Logging;

namespace Snapper.Protocol;

/// <summary>
/// The paper's TxnExeInfo (Snapper §4.3.3, Fig. 3c): which actors an ACT reached and what each did,
/// carried back along the call chain to the root so it can run 2PC with exactly those actors.
/// It also carries the first failure seen, so that a failure caught by user code in a nested call
/// still aborts the whole transaction, and the hybrid bounds for the serializability check (§4.4.3).
/// </summary>
[GenerateSerializer]
internal sealed class ExecutionInfo
{
    [Id(0)]
    private readonly Dictionary<ActorId, Participation> participants = new();

    /// <summary>Every actor reached, with its role and how many calls of the ACT it took.</summary>
    public IReadOnlyDictionary<ActorId, Participation> Participants => participants;

    /// <summary>The first exception raised anywhere in the call tree, or null.</summary>
    [Id(1)]
    public Exception? Failure { get; private set; }

    /// <summary>BeforeSet and AfterSet bounds; null while no actor reached has seen a batch.</summary>
    [Id(2)]
    public HybridBounds? Bounds { get; private set; }

    /// <summary>True if some actor reached had no batch after the ACT when it reported (§4.4.3: incomplete AfterSet).</summary>
    [Id(3)]
    public bool AfterSetIncomplete { get; private set; }

    /// <summary>Undecided ACTs whose prepared state it read (Thorp's commit dependencies); null while none.</summary>
    [Id(4)]
    public HashSet<ActDependency>? Dependencies { get; private set; }

    /// <summary>
    /// The after-commit actions registered in the call tree, by id (null while none): the root logs
    /// them with its decision. Keyed, since an actor reports what it learned with every call's
    /// answer and the same action may come back along two paths.
    /// </summary>
    [Id(5)]
    public Dictionary<AfterCommitId, AfterCommitAction>? Actions { get; private set; }

    /// <summary>
    /// The actors a call of the tree was lost to (null while none): their answers, and what their own
    /// calls reached, never came back, so the root's Abort asks them to pass it on
    /// (<see cref="ISnapperParticipant.AbortUnanswered"/>).
    /// </summary>
    [Id(6)]
    public HashSet<ActorId>? Unanswered { get; private set; }

    /// <summary>A call to <paramref name="actor"/> was lost on its way there or back: it may have run it.</summary>
    public void AddUnanswered(ActorId actor)
    {
        Add(actor, ParticipantRole.Visitor);
        (Unanswered ??= []).Add(actor);
    }

    /// <summary>An actor of the tree registered <paramref name="action"/>.</summary>
    public void AddAction(AfterCommitAction action) => (Actions ??= [])[action.Id] = action;

    /// <summary>
    /// Notes that <paramref name="actor"/> took <paramref name="calls"/> calls in the role
    /// <paramref name="role"/>, in its activation <paramref name="incarnation"/> (0: unknown). The
    /// strongest role wins; so does the largest count, since an actor reports its count so far,
    /// which one path may carry older than another. Two activations of one actor fail the ACT: the
    /// first one's part (its locks, its write) went with it, so the ACT would commit without it.
    /// </summary>
    public void Add(ActorId actor, ParticipantRole role, int calls = 0, int incarnation = 0)
    {
        if (!participants.TryGetValue(actor, out var known))
        {
            participants[actor] = new Participation(role, calls, incarnation);
            return;
        }

        if (incarnation != 0 && known.Incarnation != 0 && incarnation != known.Incarnation)
        {
            Failure ??= new TransactionAbortedException(AbortReason.Failure, $"actor {actor} was deactivated while the ACT ran there, and its next activation took a later call: what the first one did went with it");
        }

        if (role > known.Role || calls > known.Calls || (known.Incarnation == 0 && incarnation != 0))
        {
            participants[actor] = new Participation(role > known.Role ? role : known.Role, Math.Max(calls, known.Calls), known.Incarnation != 0 ? known.Incarnation : incarnation);
        }
    }

    public void Merge(ExecutionInfo other)
    {
        foreach (var (actor, participation) in other.participants)
        {
            Add(actor, participation.Role, participation.Calls, participation.Incarnation);
        }

        Failure ??= other.Failure;
        AfterSetIncomplete |= other.AfterSetIncomplete;
        if (other.Dependencies is { } dependencies)
        {
            (Dependencies ??= []).UnionWith(dependencies);
        }

        if (other.Bounds is { } bounds)
        {
            (Bounds ??= new HybridBounds()).Merge(bounds);
        }

        if (other.Unanswered is { } unanswered)
        {
            (Unanswered ??= []).UnionWith(unanswered);
        }

        if (other.Actions is { } actions)
        {
            foreach (var action in actions.Values)
            {
                AddAction(action);
            }
        }
    }

    /// <summary>
    /// A reconnaissance's count (<c>Reconnaissance/ReconnaissanceParticipant</c>): the calls of a
    /// callee's subtree, added to this one's. Each call is reported once, by the call that made it,
    /// so counts add up where <see cref="Merge"/> keeps the largest. The callee's
    /// <see cref="Failure"/> is the reconnaissance's stop (its deadline or its bound), which reaches
    /// the client even where user code caught it.
    /// </summary>
    public void AddCalls(ExecutionInfo callee)
    {
        Failure ??= callee.Failure;
        foreach (var (actor, participation) in callee.participants)
        {
            participants[actor] = participants.TryGetValue(actor, out var known)
                ? new Participation(participation.Role > known.Role ? participation.Role : known.Role, known.Calls + participation.Calls)
                : participation;
        }
    }

    public void Fail(Exception failure) => Failure ??= failure;

    /// <summary>
    /// <see cref="Fail"/>, as an exception filter that never catches: the exception goes on up
    /// without being caught and thrown again (each rethrow costs a stack walk).
    /// </summary>
    public bool FailAndPass(Exception failure)
    {
        Fail(failure);
        return false;
    }

    /// <summary>
    /// What a promoted run of the ACT declares (<c>ActOptions.Promote</c>): every actor reached, with
    /// the calls it took (one at least: an actor noted only by its caller, which gave up on the call,
    /// may have taken it). Null when no actor was reached.
    /// </summary>
    public AccessSet? Reached()
    {
        AccessSet? reached = null;
        foreach (var (actor, participation) in participants)
        {
            var calls = Math.Max(participation.Calls, 1);
            reached = reached is null ? AccessSet.Of(actor, calls) : reached.And(actor, calls);
        }

        return reached;
    }

    /// <summary>
    /// A copy to hand to the caller: what this actor learned plus its own role and its place among
    /// batches (<paramref name="before"/> and whether it had committed, <paramref name="afterBid"/>:
    /// 0 for none, and the max(BeforeSet) of ACTs that preceded this one here), in its activation
    /// <paramref name="selfIncarnation"/>.
    /// </summary>
    public ExecutionInfo Snapshot(ActorId self, ParticipantRole selfRole, BatchRef before, bool beforeCommitted, long afterBid, long precedingActsMaxBeforeBid, ActDependency? dependency, int selfCalls = 1, int selfIncarnation = 0)
    {
        var copy = new ExecutionInfo();
        copy.Merge(this);
        copy.Add(self, selfRole, selfCalls, selfIncarnation);
        if (dependency is not null)
        {
            (copy.Dependencies ??= []).Add(dependency.Value);
        }

        copy.AfterSetIncomplete |= afterBid == 0;
        if (before.Bid > 0 || afterBid > 0 || precedingActsMaxBeforeBid > 0)
        {
            (copy.Bounds ??= new HybridBounds()).Add(self, before, beforeCommitted, afterBid, precedingActsMaxBeforeBid);
        }

        return copy;
    }
}
