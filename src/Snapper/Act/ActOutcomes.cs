using System.Collections.Concurrent;
using Snapper.Protocol;

namespace Snapper.Act;

/// <summary>
/// The outcomes of the early-lock-release ACTs rooted on this silo, answered for the silo rather
/// than by the root's activation (Thorp's transaction manager, one per silo): an activation that
/// is going takes no message until its running calls end, and two going roots that each wait for
/// the other's answer would wait for ever. A dependent asks the silo its dependency's root ran on
/// (<see cref="ActDependency.RootSilo"/>); only where that silo cannot say (it is gone, it is a
/// later incarnation of the same name, or it has forgotten) does it ask the root actor, which
/// answers from its kept outcomes or the logs.
/// </summary>
/// <remarks>
/// Thread-safe: roots of many activations register here, and <see cref="ActOutcomeRelay"/> answers
/// from any thread. The entries are the root's own tasks (<see cref="Hybrid.RunningAct.WhenDecided"/>,
/// <see cref="Hybrid.RunningAct.WhenDurable"/>), taken in the root's turn before either can be set,
/// so a question and the root's decision never race on anything but a task.
/// </remarks>
internal sealed class ActOutcomes(ILocalSiloDetails local, IClusterMembershipService cluster, IGrainFactory grains, TimeProvider clock)
{
    private readonly ConcurrentDictionary<long, (Task<bool> Decided, Task<bool> Durable)> known = new();
    private readonly Queue<(long Tid, DateTimeOffset Until)> forget = new();

    /// <summary>This silo's incarnation: what an ACT rooted here carries as its root's silo.</summary>
    public SiloAddress Silo => local.SiloAddress;

    /// <summary>The root's turn: ACT <paramref name="act"/> released its locks early and may gain dependents; answered from now on.</summary>
    public void Began(Hybrid.RunningAct act) => known[act.Tid] = (act.WhenDecided, act.WhenDurable);

    /// <summary>The root's turn: ACT <paramref name="tid"/> has ended (both outcomes set); still answered for <paramref name="retention"/>.</summary>
    public void Ended(long tid, TimeSpan retention)
    {
        var now = clock.GetUtcNow();
        lock (forget)
        {
            forget.Enqueue((tid, now + retention));
            while (forget.TryPeek(out var oldest) && oldest.Until < now)
            {
                forget.Dequeue();
                known.TryRemove(oldest.Tid, out _);
            }
        }
    }

    /// <summary>The outcome of ACT <paramref name="tid"/> rooted on this silo, or null if this silo does not know it.</summary>
    public Task<bool>? Find(long tid, bool durable) =>
        known.TryGetValue(tid, out var outcome) ? (durable ? outcome.Durable : outcome.Decided) : null;

    /// <summary>
    /// Asks the silo <paramref name="dependency"/>'s root ran on: true once it committed (durably,
    /// with <paramref name="durable"/>), false once it aborted, null if that silo cannot say (ask
    /// the root actor then). Throws when the silo cannot be reached.
    /// </summary>
    public async Task<bool?> Ask(ActDependency dependency, bool durable)
    {
        if (dependency.RootSilo is not { } silo)
        {
            return null;
        }

        if (silo.Equals(local.SiloAddress))
        {
            return Find(dependency.Tid, durable) is { } outcome ? await outcome : null;
        }

        // Only the incarnation the ACT ran on knows it; a dead or stopping one is answered for by
        // the logs, through the root actor's next activation.
        if (!cluster.CurrentSnapshot.Members.TryGetValue(silo, out var member) || member.Status != SiloStatus.Active)
        {
            return null;
        }

        return await grains.GetGrain<IActOutcomeRelay>(ActOutcomeRelay.KeyOf(member.Name)).Outcome(dependency.Tid, durable, silo);
    }
}
