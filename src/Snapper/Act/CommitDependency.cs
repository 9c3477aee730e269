using Snapper.Hybrid;
using Snapper.Protocol;

namespace Snapper.Act;

/// <summary>
/// Thorp's validation (§III.F), done by the ACT's root instead of a central transaction manager,
/// asking each dependency's root (<see cref="ActRoots"/>) for its outcome:
/// an ACT that read prepared, undecided states commits only after every ACT it depends on, and
/// aborts (<see cref="AbortReason.Cascading"/>) if one of them aborted.
/// </summary>
/// <remarks>
/// Two strengths: <see cref="WaitOrdered"/> (their commits are in the log, maybe not durable) is
/// enough before logging a CoordCommit that lists them, since recovery honours that record only
/// with theirs; <see cref="WaitDurable"/> is needed before answering the caller, or before a
/// commit record that does not list them. Once an ACT's own CoordCommit is appended it waits for
/// them without a deadline: recovery would count it committed with them, so the live path must
/// too (docs/architecture.md). Dependencies only point at ACTs that had already
/// prepared when they were read, and an ACT never reads its own prepared state, so the waits form
/// no cycle; the deadline still bounds them.
/// </remarks>
internal static class CommitDependency
{
    // A deadline further away than this is no deadline (a timer cannot wait that long anyway).
    private static readonly TimeSpan MaxWait = TimeSpan.FromDays(1);

    /// <summary>Waits until its dependencies' commits are ordered in the log. <paramref name="outcomes"/> asks a dependency's root (durable: false).</summary>
    public static ValueTask WaitOrdered(long tid, ExecutionInfo info, Func<ActDependency, bool, Task<bool>> outcomes, DateTimeOffset deadline, TimeProvider clock) =>
        Wait(tid, info, d => outcomes(d, false), deadline, clock);

    /// <summary>
    /// Waits until its dependencies' commits are durable. <paramref name="deadline"/> null: no
    /// deadline, for an ACT whose own CoordCommit is already appended (its outcome is then theirs).
    /// </summary>
    public static ValueTask WaitDurable(long tid, ExecutionInfo info, Func<ActDependency, bool, Task<bool>> outcomes, DateTimeOffset? deadline, TimeProvider clock) =>
        Wait(tid, info, d => outcomes(d, true), deadline, clock);

    /// <summary>The tids of <paramref name="info"/>'s dependencies, for its CoordCommit record.</summary>
    public static System.Collections.Immutable.ImmutableArray<long> Tids(ExecutionInfo info) =>
        info.Dependencies is { } dependencies ? [.. dependencies.Select(d => d.Tid)] : [];

    private static async ValueTask Wait(long tid, ExecutionInfo info, Func<ActDependency, Task<bool>> signal, DateTimeOffset? deadline, TimeProvider clock)
    {
        if (info.Dependencies is not { } dependencies)
        {
            return;
        }

        foreach (var dependency in dependencies)
        {
            var decided = signal(dependency);
            if (!decided.IsCompleted && deadline is { } until && until - clock.GetUtcNow() < MaxWait)
            {
                var left = until - clock.GetUtcNow();
                try
                {
                    await decided.WaitAsync(left > TimeSpan.Zero ? left : TimeSpan.Zero, clock);
                }
                catch (TimeoutException)
                {
                    throw new TransactionAbortedException(AbortReason.Timeout, $"ACT {dependency.Tid}, whose prepared state it read, was not decided before its deadline") { Tid = tid, Blocker = AbortBlocker.Transaction(dependency.Root, dependency.Tid) };
                }
            }

            if (!await decided)
            {
                throw new TransactionAbortedException(AbortReason.Cascading, $"ACT {dependency.Tid}, whose prepared state it read, aborted") { Tid = tid, Blocker = AbortBlocker.Transaction(dependency.Root, dependency.Tid) };
            }
        }
    }
}
