namespace Snapper;

/// <summary>
/// The read-only context of a running transaction (Snapper §3.2.2). Snapper creates it when the
/// transaction starts; user code only passes it on to <c>GetState</c> and <c>CallActor</c>.
/// Using a context after its transaction finished is rejected.
/// </summary>
[GenerateSerializer, Immutable]
public sealed record TxnContext
{
    internal TxnContext(long tid, TxnMode mode, ActorId root, DateTimeOffset deadline, long bid = 0, AccessSet? declared = null)
    {
        this.tid = tid;
        Mode = mode;
        Root = root;
        Deadline = deadline;
        this.bid = bid;
        Declared = declared;
    }

    [Id(0)]
    private readonly long tid;

    [Id(4)]
    private readonly long bid;

    /// <summary>The transaction id; for ACTs also its age in wait-die (smaller is older).</summary>
    public long Tid => placement is null ? tid : PlacedOnSend(nameof(Tid)).tid;

    /// <summary>PACT or ACT.</summary>
    [Id(1)]
    public TxnMode Mode { get; }

    /// <summary>The actor the transaction started on; it coordinates the ACT's two-phase commit.</summary>
    [Id(2)]
    public ActorId Root { get; }

    /// <summary>When the transaction is aborted with <see cref="AbortReason.Timeout"/> if it has not finished.</summary>
    [Id(3)]
    public DateTimeOffset Deadline { get; }

    /// <summary>For a PACT, the id of its batch (the tid of the batch's first PACT); 0 for an ACT.</summary>
    public long Bid => placement is null ? bid : PlacedOnSend(nameof(Bid)).bid;

    /// <summary>For a PACT, its declaration: the actors it calls and how often.</summary>
    [Id(5)]
    internal AccessSet? Declared { get; }

    /// <summary>For a PACT, the key of the coordinator that emitted its batch: where its failure is reported.</summary>
    [Id(6)]
    internal string? Coordinator { get; init; }

    /// <summary>
    /// Set on the context a RunAct/RunPact body gets: the call carrying it starts the transaction,
    /// so the actor it reaches is the root. The root hands user code a copy without it, so no
    /// nested call carries it.
    /// </summary>
    [Id(7)]
    internal bool Start { get; init; }

    /// <summary>For an ACT's start: release locks early (Thorp), as the caller chose.</summary>
    [Id(8)]
    internal bool EarlyLockRelease { get; init; }

    // An ACT's age for wait-die: the tid of its first attempt when it is a retry, else 0 (its tid).
    [Id(9)]
    internal long Priority { get; init; }

    // For an ACT that releases its locks early: the silo its root runs on, which answers its
    // dependents for it (they may read its prepared state; see ActOutcomes). Null otherwise.
    [Id(10)]
    internal SiloAddress? RootSilo { get; init; }

    // A PACT run in place of an ACT that aborted for a concurrency reason (ActOptions.Promote):
    // its root tags the transaction's span.
    [Id(11)]
    internal bool Promoted { get; init; }

    // A reconnaissance run of a promoted ACT (Snapper.Reconnaissance): the body runs without locks,
    // batch or log, writes nothing, and reports the calls it made. Its tid is 0; the run's id names
    // what it wrote on each actor, so every call of the run reads the run's own writes.
    [Id(12)]
    internal Guid ReconnaissanceRun { get; init; }

    // A PACT's first runs by RunPact: its root's call on an actor declared once that is late past
    // the usual answer time may be refused ahead there (AbortReason.LateCall), and RunPact runs it
    // again; its runs after SnapperClient.MaxLateCallRuns go without this (State.LateAnswers).
    [Id(13)]
    internal bool GivesUpLateCalls { get; init; }

    internal bool Reconnaissance => ReconnaissanceRun != Guid.Empty;

    internal long PriorityOrTid => Priority != 0 ? Priority : Tid;

    // Client side only (not serialized): on a start context not yet placed in a batch, the
    // placement (Snapper.Grains.StartPlacement) that places it as its call is sent.
    [NonSerialized]
    private readonly IPlacedOnSend? placement;

    internal IPlacedOnSend? Placement
    {
        get => placement;
        init => placement = value;
    }

    // Client side only (not serialized): the start context has been sent once; a second call with it is refused.
    [NonSerialized]
    private int sent;

    /// <summary>Client side: true the first time a call carrying this start context is sent, false after.</summary>
    internal bool TryMarkSent() => Interlocked.Exchange(ref sent, 1) == 0;

    // Client side only (not serialized): the call carrying this start context was answered with no
    // failure, so the transaction committed (a root answers only then). What its body throws after
    // that is the body's own.
    [NonSerialized]
    private volatile bool committed;

    /// <summary>Client side: the call carrying this start context answered, so its transaction committed.</summary>
    internal bool Committed => committed;

    internal void MarkCommitted() => committed = true;

    /// <inheritdoc />
    public override string ToString() => Reconnaissance ? $"reconnaissance (root {Root})" : placement is { Placed: null } ? $"{Mode} (root {Root}, placed when its call is sent)" : $"{Mode} {Tid} (root {Root})";

    // A start placed on send has its tid and batch once its call has been sent.
    private TxnContext PlacedOnSend(string member) => placement!.Placed ?? throw new StartNotPlacedException(member);
}
