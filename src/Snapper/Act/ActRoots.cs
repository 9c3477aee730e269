using Snapper.Hybrid;
using Snapper.Protocol;

namespace Snapper.Act;

/// <summary>
/// The ACTs rooted at one actor (Snapper §4.3.3: the first actor coordinates the ACT's two-phase
/// commit) while they run, and the outcomes of those that released their locks early for a while
/// after they end: ACTs on other actors that read their prepared state ask the root for them
/// (Thorp's transaction manager, one per root). Owned by the actor; touched only in its turns.
/// </summary>
/// <remarks>
/// An outcome is remembered for twice the transaction timeout, longer than any dependent can still
/// be validating; the actor is kept active that long. An ACT this root has no record of is presumed
/// aborted, as recovery presumes one whose CoordCommit is not in the log.
/// </remarks>
internal sealed class ActRoots(IActSignals signals, TimeSpan retention, TimeProvider clock)
{
    private static readonly Task<bool> Committed = Task.FromResult(true);
    private static readonly Task<bool> Aborted = Task.FromResult(false);
    private readonly Dictionary<long, RunningAct> running = new();
    private readonly Dictionary<long, (bool Decided, bool Durable)> ended = new();
    private readonly Queue<(long Tid, DateTimeOffset Until)> forget = new();

    /// <summary>ACTs running with this actor as their root.</summary>
    public int Count => running.Count;

    /// <summary>How long after an early-lock-release ACT ended its outcome is still answered.</summary>
    public TimeSpan Retention => retention;

    public RunningAct Begin(long tid)
    {
        var act = new RunningAct(tid, signals);
        running[tid] = act;
        return act;
    }

    public RunningAct? Find(long tid) => running.GetValueOrDefault(tid);

    /// <summary>True if ACT <paramref name="tid"/> runs here, or ended here recently enough for its outcome to be kept.</summary>
    public bool Knows(long tid) => running.ContainsKey(tid) || ended.ContainsKey(tid);

    /// <summary>The tids of the ACTs running with this actor as their root.</summary>
    public IEnumerable<long> RunningTids => running.Keys;

    /// <summary>
    /// ACT <paramref name="tid"/> has ended (its outcomes are set). With
    /// <paramref name="mayHaveDependents"/> (it released its locks early) its outcomes are kept for
    /// <see cref="WhenDecided"/> and <see cref="WhenDurable"/>.
    /// </summary>
    public void End(long tid, bool mayHaveDependents)
    {
        if (running.Remove(tid, out var act) && mayHaveDependents)
        {
            var (decided, durable) = act.Outcomes;
            ended[tid] = (decided ?? false, durable ?? false);
            forget.Enqueue((tid, clock.GetUtcNow() + retention));
        }

        var now = clock.GetUtcNow();
        while (forget.TryPeek(out var oldest) && oldest.Until < now)
        {
            forget.Dequeue();
            ended.Remove(oldest.Tid);
        }
    }

    /// <summary>The outcomes kept here, for the actor's next activation when this one goes (<see cref="Adopt"/>).</summary>
    public System.Collections.Immutable.ImmutableArray<RememberedOutcome> HandOver() =>
        [.. forget.Where(f => ended.ContainsKey(f.Tid)).Select(f => new RememberedOutcome(f.Tid, ended[f.Tid].Decided, ended[f.Tid].Durable, f.Until))];

    /// <summary>This activation follows one that kept <paramref name="outcomes"/>: they are answered here until their time is up.</summary>
    public void Adopt(IEnumerable<RememberedOutcome> outcomes)
    {
        foreach (var outcome in outcomes.OrderBy(o => o.Until))
        {
            ended[outcome.Tid] = (outcome.Decided, outcome.Durable);
            forget.Enqueue((outcome.Tid, outcome.Until));
        }
    }

    /// <summary>True once ACT <paramref name="tid"/>'s commit is ordered in the log, false once it aborted (see <see cref="RunningAct.WhenDecided"/>).</summary>
    public Task<bool> WhenDecided(long tid) =>
        running.TryGetValue(tid, out var act) ? act.WhenDecided
        : ended.TryGetValue(tid, out var outcome) ? (outcome.Decided ? Committed : Aborted)
        : Aborted;

    /// <summary>True once ACT <paramref name="tid"/>'s commit and its dependencies' are durable, false once it aborted (see <see cref="RunningAct.WhenDurable"/>).</summary>
    public Task<bool> WhenDurable(long tid) =>
        running.TryGetValue(tid, out var act) ? act.WhenDurable
        : ended.TryGetValue(tid, out var outcome) ? (outcome.Durable ? Committed : Aborted)
        : Aborted;
}
