using System.Collections.Immutable;
using Snapper.Protocol;

namespace Snapper.Scheduling;

/// <summary>
/// The batch running on an actor and its PACTs' turns, in tid order (Snapper §4.2.3): a PACT's calls
/// run only in its turn, which ends once it has made the calls it declared here, or once it has
/// aborted and no call of it runs. Owned by the actor's <see cref="LocalSchedule"/>.
/// </summary>
internal sealed class RunningBatch
{
    private readonly ScheduledPact[] pacts;
    private int turn;

    /// <summary>
    /// The batch starts: PACTs that aborted before it did (<paramref name="abortedBeforeStart"/>), or
    /// were released before it did (<paramref name="releasedBeforeStart"/>: their bodies returned
    /// without calling here), have their turns skipped.
    /// </summary>
    public RunningBatch(SubBatch batch, IReadOnlyDictionary<long, Exception>? abortedBeforeStart, IReadOnlySet<long>? releasedBeforeStart = null)
    {
        Batch = batch;
        pacts = new ScheduledPact[batch.Pacts.Length];
        for (var i = 0; i < pacts.Length; i++)
        {
            pacts[i] = new ScheduledPact(batch.Pacts[i].Tid, batch.Pacts[i].Calls) { AbortedBy = abortedBeforeStart?.GetValueOrDefault(batch.Pacts[i].Tid) };
            if (releasedBeforeStart?.Contains(batch.Pacts[i].Tid) == true)
            {
                pacts[i].Release();
            }
        }
    }

    /// <summary>
    /// The batch goes on in a new activation where the last one stopped: each PACT has made
    /// <paramref name="callsFinished"/> calls, and those in <paramref name="aborted"/> have aborted.
    /// </summary>
    public RunningBatch(SubBatch batch, ImmutableArray<int> callsFinished, IEnumerable<(long Bid, long Tid, Exception Cause)> aborted, IEnumerable<(long Bid, long Tid)> released, ImmutableArray<long> awaitingRelease)
        : this(batch, AbortsOf(batch.Bid, aborted))
    {
        for (var i = 0; i < pacts.Length; i++)
        {
            pacts[i].CallsStarted = pacts[i].CallsFinished = callsFinished[i];
            pacts[i].AwaitsRelease = pacts[i].Wrote = awaitingRelease.Contains(pacts[i].Tid);
            foreach (var (bid, tid) in released)
            {
                if (bid == batch.Bid && tid == pacts[i].Tid)
                {
                    pacts[i].Release();
                }
            }
        }

        while (turn < pacts.Length && pacts[turn].TurnOver)
        {
            turn++;
        }
    }

    public SubBatch Batch { get; }

    private static Dictionary<long, Exception> AbortsOf(long bid, IEnumerable<(long Bid, long Tid, Exception Cause)> aborted)
    {
        var of = new Dictionary<long, Exception>();
        foreach (var (abortedBid, tid, cause) in aborted)
        {
            if (abortedBid == bid)
            {
                of.TryAdd(tid, cause);
            }
        }

        return of;
    }

    public long Bid => Batch.Bid;

    /// <summary>Its PACTs, in turn order (kept after it completes: an abort of one asks whether it wrote here).</summary>
    public ScheduledPact[] Pacts => pacts;

    /// <summary>Every PACT's turn has ended here.</summary>
    public bool Finished => turn >= pacts.Length;

    /// <summary>The PACT whose turn it is, if any is left.</summary>
    public ScheduledPact? Current => turn < pacts.Length ? pacts[turn] : null;

    /// <summary>No call has been let in and no PACT skipped: nothing of it has run here yet.</summary>
    public bool Untouched => Array.TrueForAll(pacts, p => p.CallsStarted == 0 && p.AbortedBy is null);

    /// <summary>The promoted PACTs whose turn waits for their root's release, for a hand-over.</summary>
    public IEnumerable<long> AwaitingRelease => pacts.Where(p => p.HeldForRelease).Select(p => p.Tid);

    /// <summary>The PACTs released here (their bodies returned before they made every call declared), for a hand-over.</summary>
    public IEnumerable<(long Bid, long Tid)> Released => pacts.Where(p => p.Released).Select(p => (Bid, p.Tid));

    /// <summary>The PACTs that have aborted, for a hand-over.</summary>
    public IEnumerable<(long Bid, long Tid, Exception Cause)> Aborted =>
        pacts.Where(p => p.AbortedBy is not null).Select(p => (Bid, p.Tid, p.AbortedBy!));

    /// <summary>The place of PACT <paramref name="tid"/> in turn order, or -1 if it is not one of this batch's PACTs here.</summary>
    public int IndexOf(long tid)
    {
        // A loop, not Array.FindIndex: a lambda capturing tid would allocate on every PACT call.
        for (var i = 0; i < pacts.Length; i++)
        {
            if (pacts[i].Tid == tid)
            {
                return i;
            }
        }

        return -1;
    }

    /// <summary>PACT <paramref name="tid"/>, or null if it declared no call on this actor.</summary>
    public ScheduledPact? Find(long tid) => IndexOf(tid) is >= 0 and var i ? pacts[i] : null;

    /// <summary>Whether the turn of the PACT at <paramref name="index"/> is past, now, or to come (negative, 0, positive).</summary>
    public int CompareToTurn(int index) => index.CompareTo(turn);

    /// <summary>
    /// Ends the turns that are over (a PACT that aborted has its turn's end told to
    /// <paramref name="engine"/>, which takes its writes back) and lets the next PACT's waiting
    /// calls in. True once every turn has ended.
    /// </summary>
    public bool AdvanceTurns(IPactSide? engine)
    {
        while (turn < pacts.Length && pacts[turn].TurnOver)
        {
            var ended = pacts[turn];
            if (ended.AbortedBy is not null)
            {
                engine?.AbortedTurnEnded(ended);
                ended.TurnEnded?.TrySetResult();
            }

            turn++;
            if (turn < pacts.Length)
            {
                pacts[turn].Turn?.TrySetResult();
            }
        }

        return Finished;
    }

    /// <summary>The batch is put back among those not started: calls waiting for a turn try again.</summary>
    public void Unstart()
    {
        foreach (var pact in pacts)
        {
            pact.Turn?.TrySetResult();
        }
    }

    /// <summary>The batch was aborted here: calls waiting for a turn fail with <paramref name="cause"/>, and its writes are gone.</summary>
    public void Abort(Exception cause)
    {
        foreach (var pact in pacts)
        {
            pact.Turn?.TrySetException(cause);
            pact.TurnEnded?.TrySetResult();
        }
    }

    /// <summary>The activation is going: calls waiting for a later turn fail with <paramref name="moved"/>.</summary>
    public void Bounce(Exception moved)
    {
        for (var i = turn + 1; i < pacts.Length; i++)
        {
            if (pacts[i].Turn is { } waiting)
            {
                pacts[i].Turn = null;
                waiting.TrySetException(moved);
            }
        }
    }

    /// <summary>Which PACT the batch waits for here, for a declaration-error message.</summary>
    public string DescribeWait(ActorId actor)
    {
        var pact = pacts[Math.Min(turn, pacts.Length - 1)];
        return $"PACT {pact.Tid} declared {pact.DeclaredCalls} call(s) on actor {actor} but made {pact.CallsStarted}";
    }
}
