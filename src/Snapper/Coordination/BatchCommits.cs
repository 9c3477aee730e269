using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;
using Snapper.Failover;
using Snapper.Protocol;
using Snapper.Recovery;

namespace Snapper.Coordination;

/// <summary>
/// BatchCommit, delivered once per silo instead of once per participant (a departure from Snapper
/// §4.2.4, deliberate; docs/architecture.md, "BatchCommit, once per silo"): for each coordinator,
/// the highest of its batches this silo knows committed, and the actors here waiting for one of
/// its batches at or below that.
/// </summary>
/// <remarks>
/// <para>A coordinator commits its batches in bid order and aborts one only after every participant
/// has rolled it back. So once its batch b has committed, each of its batches up to b either
/// committed or was already taken back on every actor that held it: an actor waiting for one of
/// them commits it unless it was aborted there. A coordinator announces each batch it commits here
/// and to every other active silo's <see cref="IBatchCommitRelay"/>, one message per silo where the
/// paper sends one per participant (a PACT over four actors then costs four messages fewer, half of
/// them across silos on two).</para>
/// <para>Only a coordinator's own announcements count for its batches: a dead coordinator's batch may
/// have been aborted by the failover without its participants being told, and they learn its
/// outcome from the failover (<see cref="Pact.PactParticipant{TState}.ResolveDeparted"/>), as before.
/// Nor does a coordinator of the same name on a silo that came back speak for its predecessor's
/// batches: once the failover sealed, those are answered from the seal (<see cref="Sealed"/>).</para>
/// <para>An actor registers when its sub-batch arrives and runs the commit in its own grain context
/// when the task completes. A silo that misses an announcement (it joined after the coordinator's
/// membership view was taken, the message was lost, the coordinator died) is not left waiting:
/// once a coordinator's lowest batch waited for here has waited <see cref="Patience"/>, the
/// coordinator (or, for a dead one, the failover) is asked how it ended.</para>
/// </remarks>
internal sealed class BatchCommits(
    IGrainFactory grains,
    CoordinatorReferences coordinators,
    DepartedSilos departures,
    IClusterMembershipService membership,
    ILocalSiloDetails local,
    TimeProvider clock,
    ILoggerFactory loggerFactory) : IDisposable
{
    /// <summary>How long a coordinator's lowest batch waited for here may wait for an announcement before the coordinator is asked.</summary>
    internal static readonly TimeSpan Patience = TimeSpan.FromSeconds(1);

    private static readonly Task<bool> AlreadyCommitted = Task.FromResult(true);
    private readonly ILogger diagnostics = loggerFactory.CreateLogger("Snapper.Pact");
    private readonly Lock gate = new();
    private readonly Dictionary<string, Chain> chains = new(StringComparer.Ordinal);
    private ITimer? patienceTimer;
    private bool watchingSeals;
    private int waiting; // batches waited for, over every chain
    private long announcedByOtherSilos;
    private (MembershipVersion Version, IBatchCommitRelay[] Relays) otherSilos = (MembershipVersion.MinValue, []);

    /// <summary>
    /// Actor → this silo, when batch <paramref name="bid"/> of <paramref name="coordinator"/> arrives
    /// there: true once that coordinator has committed it or a later batch (commit it, unless it was
    /// aborted here); false if it is known to have aborted.
    /// </summary>
    public Task<bool> WhenCommitted(string coordinator, long bid)
    {
        lock (gate)
        {
            if (coordinators.DecidedByFailover(coordinator, bid))
            {
                // A coordinator of that name that came back since may have committed later bids:
                // they say nothing of this one, which the failover decided.
                return CommittedByFailover(coordinator, bid);
            }

            if (!chains.TryGetValue(coordinator, out var chain))
            {
                chains.Add(coordinator, chain = new Chain(coordinator));
            }

            if (bid <= chain.CommittedThrough)
            {
                return AlreadyCommitted;
            }

            if (!chain.Waiters.TryGetValue(bid, out var waiter))
            {
                waiter = new Waiter(clock.GetTimestamp());
                chain.Waiters.Add(bid, waiter);
                chain.Lowest.Enqueue(bid, bid);
                waiting++;
                patienceTimer ??= clock.CreateTimer(static state => ((BatchCommits)state!).CheckPatience(), this, Patience, Patience);
                if (!watchingSeals)
                {
                    watchingSeals = true; // from the first waiter on: before it, a seal settles no one here
                    departures.Sealed += Sealed;
                }
            }

            return waiter.Committed.Task;
        }
    }

    /// <summary>
    /// A failover sealed here (<see cref="DepartedSilos.Sealed"/>): the actors waiting for one of its
    /// silo's coordinators' batches up to the seal learn the failover's decision, never an
    /// announcement of a coordinator of that name that comes back later.
    /// </summary>
    internal void Sealed(FailoverSeal seal)
    {
        var (silo, through) = (seal.Silo, seal.Through);
        List<(string Coordinator, long Bid, Waiter Waiter)>? settled = null;
        lock (gate)
        {
            foreach (var chain in chains.Values.Where(c => CoordinatorKey.SiloOf(c.Coordinator) == silo))
            {
                foreach (var bid in chain.Waiters.Keys.Where(b => b <= through).ToList())
                {
                    chain.Waiters.Remove(bid, out var waiter);
                    chain.Lowest.Remove(bid, out _, out _);
                    waiting--;
                    (settled ??= []).Add((chain.Coordinator, bid, waiter!));
                }
            }
        }

        foreach (var (coordinator, bid, waiter) in settled ?? [])
        {
            _ = Settle(waiter, CommittedByFailover(coordinator, bid));
        }

        static async Task Settle(Waiter waiter, Task<bool> committed) => waiter.Committed.TrySetResult(await committed);
    }

    private async Task<bool> CommittedByFailover(string coordinator, long bid) => (await coordinators.WaitResolved(coordinator, bid)).Committed;

    /// <summary>Coordinator on this silo: its batch <paramref name="bid"/> has committed; tell this silo and every other active one.</summary>
    public void Announce(string coordinator, long bid)
    {
        Advance(coordinator, bid);
        foreach (var relay in OtherSilos())
        {
            _ = Send(relay, coordinator, bid);
        }
    }

    /// <summary>Relay: a coordinator on another silo announced that its batch <paramref name="bid"/> committed.</summary>
    public void Announced(string coordinator, long bid)
    {
        Interlocked.Increment(ref announcedByOtherSilos);
        Advance(coordinator, bid);
    }

    /// <summary>How many announcements other silos' coordinators made here (for tests and diagnostics).</summary>
    internal long AnnouncedByOtherSilos => Interlocked.Read(ref announcedByOtherSilos);

    /// <summary><paramref name="coordinator"/>'s batch <paramref name="bid"/> has committed: wake the actors waiting for it or an earlier one of its batches.</summary>
    public void Advance(string coordinator, long bid)
    {
        List<Waiter>? woken = null;
        lock (gate)
        {
            if (!chains.TryGetValue(coordinator, out var chain))
            {
                chains.Add(coordinator, chain = new Chain(coordinator));
            }

            if (bid <= chain.CommittedThrough)
            {
                return;
            }

            chain.CommittedThrough = bid;
            while (chain.Lowest.TryPeek(out var waited, out _) && waited <= bid)
            {
                chain.Lowest.Dequeue();
                if (chain.Waiters.Remove(waited, out var waiter))
                {
                    waiting--;
                    (woken ??= []).Add(waiter);
                }
            }
        }

        // Outside the lock: each actor's continuation is queued to its own activation, never run here.
        if (woken is not null)
        {
            foreach (var waiter in woken)
            {
                waiter.Committed.TrySetResult(true);
            }
        }
    }

    public void Dispose()
    {
        departures.Sealed -= Sealed;
        lock (gate)
        {
            patienceTimer?.Dispose();
            patienceTimer = null;
        }
    }

    private IBatchCommitRelay[] OtherSilos()
    {
        var snapshot = membership.CurrentSnapshot;
        var known = otherSilos;
        if (known.Version == snapshot.Version)
        {
            return known.Relays;
        }

        var relays = snapshot.Members.Values
            .Where(m => m.Status == SiloStatus.Active && !m.SiloAddress.Equals(local.SiloAddress))
            .Select(m => grains.GetGrain<IBatchCommitRelay>(BatchCommitRelay.KeyOf(m.Name)))
            .ToArray();
        otherSilos = (snapshot.Version, relays);
        return relays;
    }

    private async Task Send(IBatchCommitRelay relay, string coordinator, long bid)
    {
        try
        {
            await relay.Committed(coordinator, bid);
        }
        catch (Exception e)
        {
            // That silo's actors ask the coordinator once they have waited long enough.
            LogMessages.BatchCommitRelayFailed(diagnostics, e, relay.GetPrimaryKeyString(), bid);
        }
    }

    // A coordinator's lowest batch waited for here has waited too long for an announcement: ask it.
    private void CheckPatience()
    {
        List<(Chain Chain, long Bid)>? ask = null;
        lock (gate)
        {
            if (waiting == 0)
            {
                patienceTimer?.Dispose();
                patienceTimer = null;
                return;
            }

            foreach (var chain in chains.Values)
            {
                if (!chain.Asking && chain.Lowest.TryPeek(out var bid, out _) && chain.Waiters.TryGetValue(bid, out var waiter) && clock.GetElapsedTime(waiter.Since) >= Patience)
                {
                    chain.Asking = true;
                    (ask ??= []).Add((chain, bid));
                }
            }
        }

        foreach (var (chain, bid) in ask ?? [])
        {
            _ = Ask(chain, bid);
        }
    }

    private async Task Ask(Chain chain, long bid)
    {
        try
        {
            var outcome = await coordinators.WaitResolved(chain.Coordinator, bid);
            if (outcome.Committed)
            {
                Advance(chain.Coordinator, bid);
            }
            else
            {
                Aborted(chain, bid);
            }
        }
        catch (Exception e)
        {
            LogMessages.BatchOutcomeUnknown(diagnostics, e, chain.Coordinator, bid);
        }
        finally
        {
            lock (gate)
            {
                chain.Asking = false;
            }
        }
    }

    // Batch bid aborted: its participants were told by its coordinator or are told by the failover;
    // they stop waiting here without committing anything.
    private void Aborted(Chain chain, long bid)
    {
        Waiter? waiter;
        lock (gate)
        {
            if (!chain.Waiters.Remove(bid, out waiter))
            {
                return;
            }

            waiting--;
            chain.Lowest.Remove(bid, out _, out _);
        }

        waiter.Committed.TrySetResult(false);
    }

    // One coordinator's batches as this silo knows them.
    private sealed class Chain(string coordinator)
    {
        public string Coordinator { get; } = coordinator;

        public long CommittedThrough { get; set; }

        public Dictionary<long, Waiter> Waiters { get; } = new();

        public PriorityQueue<long, long> Lowest { get; } = new(); // the bids in Waiters, lowest first

        public bool Asking { get; set; }
    }

    private sealed class Waiter(long since)
    {
        public long Since { get; } = since;

        public TaskCompletionSource<bool> Committed { get; } = new();
    }
}
