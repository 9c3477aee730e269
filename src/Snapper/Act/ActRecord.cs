using Snapper.Protocol;
using Snapper.Scheduling;

namespace Snapper.Act;

/// <summary>One actor's record of one ACT it takes part in.</summary>
internal sealed class ActRecord<TState>(TxnContext ctx)
    where TState : class
{
    public TxnContext Context { get; } = ctx;

    public ActRecordState State { get; set; } = ActRecordState.Active;

    /// <summary>Calls of the ACT that arrived here (what a promoted run declares on this actor).</summary>
    public int Calls { get; set; }

    /// <summary>The transaction's private copy of the state, made at its first write access.</summary>
    public TState? Working { get; set; }

    /// <summary>The state <see cref="Working"/> was copied from (version <see cref="WorkingVersion"/> - 1): what a delta is logged against.</summary>
    public TState? Base { get; set; }

    /// <summary>The version <see cref="Working"/> becomes when committed: one more than that of the state it was copied from.</summary>
    public long WorkingVersion { get; set; }

    /// <summary>Its place in this actor's local schedule: the ACTs between the same two batches.</summary>
    public required ActGroup Group { get; init; }

    /// <summary>
    /// Completes when the group is admitted here (null) or the ACT may not wait for that (the abort);
    /// every call of the ACT on this actor awaits it.
    /// </summary>
    public Task<Exception?> Admission { get; set; } = Admitted;

    /// <summary>The batch just before the ACT here when it was admitted (bid 0: none): its bound on the BeforeSet.</summary>
    public BatchRef BeforeBatch { get; set; }

    /// <summary><see cref="BeforeBatch"/> had already committed when the ACT was admitted: nothing to wait for.</summary>
    public bool BeforeCommitted { get; set; } = true;

    /// <summary>The undecided ACT whose prepared state it read here (early lock release), or null.</summary>
    public ActDependency? DependsOn { get; set; }

    /// <summary>Prepared, past its deadline, and its root was asked for the outcome (the Commit may have been lost).</summary>
    public bool RootAsked { get; set; }

    /// <summary>It released its lock at Prepare and its state is one of the actor's active versions.</summary>
    public bool ReleasedEarly { get; set; }

    /// <summary>While the ACT waits here to be admitted: completed by its root if the wait is doomed (with the batch behind the ACT).</summary>
    public TaskCompletionSource<(long Behind, ActorId At)>? Doomed { get; set; }

    /// <summary>
    /// Where a call of the ACT failed, once heard here (<c>ActDoomed</c>) or failed from here: it
    /// aborts, and waits for no lock here any more.
    /// </summary>
    public ActorId? DoomedAt { get; set; }

    /// <summary>Why the call that doomed the ACT failed (with <see cref="DoomedAt"/>).</summary>
    public AbortReason DoomedBy { get; set; }

    private static Task<Exception?> Admitted { get; } = Task.FromResult<Exception?>(null);

    /// <summary>The actors this actor's calls of the transaction are under way on (null: none yet).</summary>
    public List<ActorId>? Calling { get; set; }

    /// <summary>After-commit actions the ACT registered here (the next one's place among them).</summary>
    public int ActionsRegistered { get; set; }

    /// <summary>What the calls this actor made in the transaction reported back, and the after-commit actions registered here.</summary>
    public ExecutionInfo Learned { get; } = new();
}
