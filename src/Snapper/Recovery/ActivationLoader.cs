using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Configuration;
using Snapper.Diagnostics;
using Snapper.Logging;

namespace Snapper.Recovery;

/// <summary>
/// Where an activating actor's committed state comes from: the store of states at rest
/// (<see cref="StatesAtRest"/>), handed over by the silo where it was active last (this one or
/// another), or read from the logs (at the silo's start, or by the failover after a silo
/// departed), the highest version winning. A deactivating actor leaves its state here for the next
/// activation (<see cref="Leave"/>): in the store if it goes with nothing undecided, else in memory.
/// </summary>
internal sealed class ActivationLoader(
    StateHandoffs handoffs,
    CommittedStates states,
    StatesAtRest atRest,
    IDepartures departures,
    IClusterMembershipService cluster,
    ILocalSiloDetails silo,
    IOptions<SnapperOptions> options,
    TimeProvider clock,
    ILoggerFactory loggerFactory)
{
    private static readonly TimeSpan HandOverPoll = TimeSpan.FromMilliseconds(500);

    // The sequence an activation after a failover skips: past any the departed silo's activations
    // of the actor reached since the row this one read (StatesAtRest), so a row that silo writes
    // if it wakes up never replaces a survivor's.
    internal const long FailoverSequenceStep = 1L << 20;
    private const int HandOverAttempts = 5;
    private readonly ILogger diagnostics = loggerFactory.CreateLogger("Snapper.Actor");

    /// <summary>
    /// What <paramref name="actor"/>, activating here, starts from: the state a silo handed over (or
    /// this silo read from its logs at start), with what an earlier activation left along with it;
    /// the committed state, which after a departure may be newer in the logs than any hand-over;
    /// and the writes it prepared for ACTs still undecided when its silo departed (to settle with
    /// their roots before it serves). The states are null for an actor that never committed.
    /// </summary>
    /// <remarks>
    /// Taking is destructive (no silo keeps what it handed over), so an activation that fails once
    /// it has taken must <see cref="GiveBack"/>; this one does so itself if its wait for a failover
    /// fails.
    /// </remarks>
    public async Task<(CommittedState? HandedOver, CommittedState? Committed, IReadOnlyList<PrepareRecord> Undecided, long Sequence)> Load(ActorId actor)
    {
        var (handedOver, answered) = await TakeCommittedState(actor);
        try
        {
            // The row only once every silo answered or was gone: an activation that left its state
            // drops it from memory only once its row is durable, and a round truncates the states it
            // moved to the store only once their rows are, so a row read before the hand-over
            // could miss both.
            if (await atRest.Read(actor) is { } stored)
            {
                handedOver = handedOver is { } held ? WithRow(held, stored) : stored;
            }

            var (committed, undecided, throughSeal) = await AfterDepartures(actor, handedOver, answered);
            if (committed is { OnBaseAtRest: true } partial)
            {
                throw new InvalidDataException(
                    $"{actor} cannot activate: the logs hold changes to its state from version {partial.WholeVersion + 1}, but no state of it at version {partial.WholeVersion} or later is at rest: records are missing.");
            }

            var sequence = Math.Max(handedOver?.Sequence ?? 0, committed?.Sequence ?? 0);
            return (handedOver, committed, undecided, sequence + (throughSeal ? FailoverSequenceStep : 1));
        }
        catch
        {
            GiveBack(actor, handedOver);
            throw;
        }
    }

    /// <summary>
    /// A deactivating actor leaves its committed state (and what goes with it) for its next
    /// activation: in the store if <paramref name="settled"/> (nothing undecided goes with it, so
    /// no silo need hold it) and the store takes it before <paramref name="cancellationToken"/>
    /// ends, else in this silo's memory, where the next activation asks for it.
    /// </summary>
    public async Task Leave(ActorId actor, CommittedState state, bool settled, CancellationToken cancellationToken)
    {
        // In memory while the row is written: if the next activation began before this one is
        // gone, it finds the state here.
        states.Offer(actor, state);
        if (!settled || !atRest.Enabled)
        {
            return;
        }

        bool stored;
        try
        {
            stored = await atRest.Write(actor, state, cancellationToken);
        }
        catch (Exception e)
        {
            LogMessages.StatesNotStored(diagnostics, e, 1);
            stored = false;
        }

        if (stored)
        {
            states.Remove(actor, state);
        }
    }

    // A row and a state held in memory (from a hand-over, or the logs as this silo read them at its
    // start): the higher version, the higher sequence and what either carries (CommittedState.Merge),
    // on a tie in version batches first from memory (it left later), but the state itself from the
    // row: an activation wrote it, while the logs' last record of a version may hold a write taken
    // back after it (PactParticipant.TakeBackAndLog) when this silo read them mid-append.
    private static CommittedState WithRow(CommittedState held, CommittedState row)
    {
        var merged = CommittedState.Merge(held, row);
        return held.Version == row.Version ? merged with { State = row.State, Deltas = row.Deltas } : merged;
    }

    // The state found and the one the failover's seal read in the logs: the seal's if newer (what
    // came with the one found does not), and either built on the other where it rests on a state
    // at rest the other is.
    private static CommittedState WithSealed(CommittedState found, CommittedState sealedState)
    {
        if (sealedState.Version > found.Version)
        {
            return sealedState.OnBaseAtRest && !found.OnBaseAtRest && found.Version >= sealedState.WholeVersion ? sealedState.Over(found) : sealedState;
        }

        return found.OnBaseAtRest && !sealedState.OnBaseAtRest && sealedState.Version >= found.WholeVersion ? found.Over(sealedState) : found;
    }

    /// <summary>
    /// An activation failed after <see cref="Load"/> took <paramref name="handedOver"/>: it goes back
    /// to this silo's <see cref="CommittedStates"/>, where the next activation (here, or on another
    /// silo through the hand-over) takes it again. Without it that activation would start from an
    /// older state, the logs' as this silo read them at its start, and lose every write since.
    /// </summary>
    public void GiveBack(ActorId actor, CommittedState? handedOver)
    {
        if (handedOver is { } state)
        {
            states.Offer(actor, state);
        }
    }

    // The last committed state taken from this silo's CommittedStates and from every other active
    // silo's (the actor may have been active there last), merged: the highest version wins, and
    // what came with any of them stays. A silo that joined a running cluster holds what the logs
    // said at its start for actors active elsewhere: the same version as a later hand-over from
    // their silo, which then wins the tie and keeps the writes they prepared there.
    // A silo stopping gracefully is asked too: its actors leave their states there as they go,
    // and it answers until it is gone (IStateHandoff is a grain service). Also returned: the silo
    // incarnations that answered, with a state or without (AfterDepartures). Not by the status the
    // membership showed when they were asked: a silo that begins to stop may still show Active.
    private async Task<(CommittedState? State, IReadOnlyCollection<SiloAddress> Answered)> TakeCommittedState(ActorId actor)
    {
        var local = states.Take(actor);
        var others = cluster.CurrentSnapshot.Members.Values.Where(m => IDepartures.Answers(m.Status) && m.Name != silo.Name).ToList();
        if (others.Count == 0)
        {
            return (local, []);
        }

        CommittedState? found = null;
        List<SiloAddress> answeredBy = [];
        var answers = await Task.WhenAll(others.Select(async member => (member.SiloAddress, Answer: await HandOver(member.Name, member.SiloAddress, actor))));
        foreach (var (address, (answered, state)) in answers)
        {
            if (state is { } s)
            {
                found = found is { } f ? CommittedState.Merge(f, s) : s;
            }

            if (answered)
            {
                answeredBy.Add(address);
            }
        }

        return ((found, local) switch
        {
            ({ } f, { } l) => CommittedState.Merge(f, l),
            _ => found ?? local,
        }, answeredBy);
    }

    // A silo that stops or dies while it is asked may never answer (its messages are lost with it):
    // once it is gone, what it held is in the logs, which the failover reads. A running
    // silo is asked again with the same request when an answer is lost (it gave the state away with
    // that answer), and the activation fails rather than start from an older state.
    private async Task<(bool Answered, CommittedState? State)> HandOver(string member, SiloAddress address, ActorId actor)
    {
        var handoff = handoffs.At(address);
        var request = Guid.NewGuid();
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                var take = handoff.Take(actor, request);
                while (await Task.WhenAny(take, Task.Delay(HandOverPoll, clock)) != take)
                {
                    if (!departures.IsRunning(member))
                    {
                        return (false, null);
                    }
                }

                return (true, await take);
            }
            catch (Exception e) when (!departures.IsRunning(member))
            {
                LogMessages.HandOverLost(diagnostics, e, member, actor);
                return (false, null);
            }
            catch (Exception e) when (attempt >= HandOverAttempts)
            {
                throw new SnapperException($"Silo {member} did not hand over the committed state of {actor} in {HandOverAttempts} attempts; the activation fails rather than start from an older state.", e);
            }
            catch (Exception e)
            {
                LogMessages.HandOverRetried(diagnostics, e, member, actor);
                await Task.Delay(HandOverPoll, clock);
            }
        }
    }

    // After a silo departed: the state the actor had there may be newer than any silo hands over
    // (it was active there), so the logs as the failover read them count too, once it is sealed;
    // and the writes it had prepared there for ACTs still undecided then come along.
    // Not for a silo stopping gracefully whose incarnation answered the hand-over, with a state or
    // without: it holds the last state of every actor that was active there (they leave it as they
    // go, with the writes they prepared), so its logs hold nothing newer. Its failover begins only once it
    // is gone, and its stop may wait for this very activation (Orleans moves a stopping silo's
    // grains, and its transactions still running wait on calls to actors activating here), so
    // waiting for that failover here would hold both until the silo's shutdown timeout.
    private async Task<(CommittedState? State, IReadOnlyList<PrepareRecord> Undecided, bool ThroughSeal)> AfterDepartures(ActorId actor, CommittedState? found, IReadOnlyCollection<SiloAddress> answered)
    {
        if (!departures.Any)
        {
            return (found, [], false);
        }

        var settled = departures.WhenSettled(answered);
        var limit = 2 * options.Value.TransactionTimeout;
        if (await Task.WhenAny(settled, Task.Delay(limit, clock)) != settled)
        {
            throw new SnapperException($"{actor} cannot activate: a silo left the cluster and its failover has not finished within {limit}, so its last committed state is not known yet.");
        }

        if (await settled is not { } seal)
        {
            return (found, [], false);
        }

        var (logged, undecided) = seal.ForActivation(actor);
        if (logged is { } l)
        {
            found = found is { } f ? WithSealed(f, l) : l;
        }

        // The departed silo may have gone on after it stopped answering (it paused, was declared
        // dead and woke): a round of its own that moved states to the store and truncated its logs
        // before the seal read them left them only in the row, which the read above may have missed.
        if (await atRest.Read(actor) is { } row)
        {
            found = found is { } g ? WithRow(g, row) : row;
        }

        var version = found?.Version ?? 0;
        return (found, [.. undecided.Where(p => p.Version > version)], true);
    }
}
