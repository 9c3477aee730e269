using Orleans.Concurrency;

namespace Snapper.Protocol;

/// <summary>
/// The protocol messages every transactional actor receives, as grain calls on an interface that
/// <see cref="TransactionalActor{TState}"/> implements. Addressed by the actor's <c>GrainId</c>,
/// whatever key kind its user interface has.
/// </summary>
internal interface ISnapperParticipant : IGrain
{
    /// <summary>ACT root → participant: phase one of 2PC (Snapper §4.3.3).</summary>
    Task<Vote> Prepare(long tid, HybridDecision decision, bool earlyLockRelease);

    /// <summary>ACT root → participant: phase two, commit.</summary>
    Task Commit(long tid, HybridDecision decision);

    /// <summary>ACT root → its only writer: commit in one phase.</summary>
    Task CommitOnePhase(long tid, HybridDecision decision);

    /// <summary>ACT root → participant: abort (presumed abort: a participant that misses it finds no CoordCommit).</summary>
    Task Abort(long tid);

    /// <summary>
    /// ACT root → an actor a call of the ACT was lost to (its answer, and the execution info in it,
    /// never came): abort, and pass the Abort on to the actors its own calls reached, which only it
    /// knows of.
    /// </summary>
    Task AbortUnanswered(long tid);

    /// <summary>Coordinator → actor, one-way: BatchMsg, the actor's sub-batch (Snapper §4.2.2). Sent alongside the BatchInfo write, not after it: recovery presumes abort for a batch without a BatchCommit, which is logged after BatchInfo.</summary>
    [OneWay]
    Task OnBatch(SubBatch batch);

    /// <summary>
    /// Coordinator → actor: batch <paramref name="bid"/> aborted in a cascade that ends at
    /// <paramref name="through"/>; roll back the batches from it through that end. Answered once
    /// done, so the cascade ends only when no actor keeps aborted state. The PACTs
    /// <paramref name="failures"/> does not name are told <paramref name="cascade"/>
    /// (<see cref="BatchOutcome.Cascade"/>).
    /// </summary>
    Task OnAbort(long bid, long through, Dictionary<long, Exception> failures, AbortReason cascade);

    /// <summary>
    /// Coordinator → every actor PACT <paramref name="tid"/> of batch <paramref name="bid"/>
    /// declared: it aborted (<paramref name="cause"/>); skip or end its turn and take back its
    /// write, with every access made after it. Answered once done, naming the PACTs that had read
    /// the write (they must abort too), or saying it could not be taken back alone (the coordinator
    /// then aborts the whole batch). Its root learns the abort here.
    /// </summary>
    Task<PactAbortAnswer> AbortPact(long bid, long tid, Exception cause);

    /// <summary>
    /// The silo of a caller whose call of PACT <paramref name="tid"/> into this actor has not been
    /// answered long after such calls usually are → this actor: the answer it gave that call, if it
    /// ran here (<see cref="State.LateAnswers"/>). An answer lost or held up on the way (a pause, a
    /// dropped message) then costs its PACT, and every batch behind it on the caller, one more round
    /// trip instead of the response timeout. <paramref name="caller"/> is the calling actor's grain.
    /// A call of batch <paramref name="bid"/> that has not reached this actor yet, whose turn here has
    /// not begun, is refused ahead if <paramref name="refuseAheadFor"/> names the batch's coordinator
    /// (the PACT's first runs): this actor reports the failure there, its turn here ends, the call is
    /// refused when it comes, and the answer says so. A call that has not come, of a PACT that has
    /// aborted here already, is answered with that abort.
    /// </summary>
    Task<LateCallAnswer> PactCallAnswer(long bid, long tid, GrainId caller, string? refuseAheadFor);

    /// <summary>
    /// A PACT's root → an actor it declared, one-way: the body of PACT <paramref name="tid"/> of
    /// batch <paramref name="bid"/> has returned, having called here fewer times than declared (as
    /// far as the root counted: it sends this to every declared actor it did not call itself as
    /// often as declared). No more of its calls come: its turn here ends once the calls it made
    /// have returned. Safe late or twice; if lost, the declaration timeout still ends the wait.
    /// </summary>
    [OneWay]
    Task ReleasePact(long bid, long tid);

    /// <summary>
    /// Participant → the ACT's root, one-way: batch <paramref name="bid"/> was placed behind ACT
    /// <paramref name="tid"/> (or behind an ACT waiting for its lock) on actor <paramref name="at"/>,
    /// so it is in the ACT's AfterSet.
    /// </summary>
    [OneWay]
    Task BatchBehind(long tid, long bid, ActorId at);

    /// <summary>
    /// Actor → the ACT's root, and on down the call tree to the actors its calls wait on, one-way:
    /// a call of ACT <paramref name="tid"/> failed on the way from <paramref name="at"/> (for
    /// <paramref name="reason"/>), so the ACT aborts whatever its body does next. Its lock wait there
    /// ends at once, with the same reason, and so does every one its other calls meet later there: a
    /// doomed ACT must not hold its locks elsewhere while it waits for one it will never use.
    /// </summary>
    [OneWay]
    Task ActDoomed(long tid, ActorId at, AbortReason reason);

    /// <summary>Participant → the ACT's root, one-way: ACT <paramref name="tid"/> started (or stopped) waiting for <paramref name="holder"/>'s lock.</summary>
    [OneWay]
    Task LockWait(long tid, ActDependency holder, bool waiting);

    /// <summary>Participant → the ACT's root, one-way: ACT <paramref name="tid"/> waits on <paramref name="participant"/> for batch <paramref name="bid"/> to complete; say if that is doomed.</summary>
    [OneWay]
    Task WatchBatch(long tid, long bid, ActorId participant);

    /// <summary>The ACT's root → participant, one-way: ACT <paramref name="tid"/>'s wait there is doomed (batch <paramref name="behind"/> is behind the ACT, on actor <paramref name="at"/>; 0: the ACT has ended).</summary>
    [OneWay]
    Task BatchWaitDoomed(long tid, long behind, ActorId at);

    /// <summary>
    /// Actor → an actor a call of transaction <paramref name="tid"/> (an ACT or a PACT, by
    /// <paramref name="mode"/>) is under way on, one-way: the activation of <paramref name="going"/>
    /// (the sender, or one the sender heard of) is going and takes no message until the
    /// transaction's call running there returns. The transaction's calls back into it give up, or
    /// are refused before they are sent, there and on the actors its calls from there wait on
    /// (<see cref="State.WaitedCalls"/>); an ACT's lock wait there ends too.
    /// </summary>
    [OneWay]
    Task StopWaiting(long tid, ActorId going, TxnMode mode);

    /// <summary>
    /// An ACT's root → the root of an ACT it depends on (Thorp's commit dependency): completes with
    /// true once <paramref name="tid"/> committed (its commit durable, with <paramref name="durable"/>;
    /// ordered in the log, without), false once it aborted or if it is unknown (presumed abort).
    /// </summary>
    Task<bool> ActOutcome(long tid, bool durable);

    /// <summary>
    /// A silo's checkpoint → actor: completes once what <paramref name="step"/> names, as it stands
    /// at the call, is over here; fails past <paramref name="until"/> (docs/architecture.md, "Checkpoints").
    /// </summary>
    Task Settle(SettleStep step, DateTimeOffset until);

    /// <summary>
    /// A silo's failover → actor, after silo <paramref name="silo"/> departed and the surviving
    /// coordinators resolved their batches: commit or roll back the batches of its coordinators held
    /// here, as the logs decided, and ask the roots of the ACTs prepared here for their outcome.
    /// Answered once the batches are settled.
    /// </summary>
    Task ResolveDeparted(string silo);

    /// <summary>
    /// The caller of a PACT's first call → the root's next activation, after the root answered with
    /// a <see cref="Grains.PendingPactResponse"/>: completes once PACT <paramref name="tid"/> of batch
    /// <paramref name="bid"/> (emitted by <paramref name="coordinator"/>) is decided, with null if it
    /// committed, else its abort. Throws <see cref="Grains.ActorMovingException"/> if this activation goes
    /// too before then.
    /// </summary>
    Task<TransactionAbortedException?> AwaitPact(long tid, long bid, string coordinator);

    /// <summary>
    /// The root of a reconnaissance run → an actor the run wrote on, one-way: run
    /// <paramref name="run"/> has ended, so the copy it wrote there goes. Safe late or twice; if
    /// lost, the copy goes after the run's deadline (<c>Reconnaissance/ReconnaissanceWrites</c>).
    /// </summary>
    [OneWay]
    Task EndReconnaissance(Guid run);

    /// <summary>
    /// Coordinator → actor: which PACT batch <paramref name="bid"/> waits for here (0: none), or
    /// <see cref="Scheduling.LocalSchedule.HeldUp"/> if it waits for ACTs or an earlier batch ahead of it,
    /// with a description for a declaration-error message.
    /// </summary>
    Task<(long Tid, string Description)> DescribeWait(long bid);
}
