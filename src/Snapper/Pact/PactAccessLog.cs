using System.Collections.Immutable;
using Snapper.Protocol;

namespace Snapper.Pact;

/// <summary>
/// The accesses of uncommitted PACTs to one actor's state, in the order they happened, oldest batch
/// first: each PACT's first access in its batch, and its first write with the state before it.
/// What a PACT that aborts took back with it follows from this alone: every PACT that accessed the
/// state after its write saw that write, and the state goes back to the one before it.
/// </summary>
/// <remarks>Owned by one actor; touched only inside its turns. Entries are structs in a list: no
/// allocation per access once the list has grown.</remarks>
internal sealed class PactAccessLog<TState>
    where TState : class
{
    private readonly List<Access> accesses = new();

    /// <summary>PACT <paramref name="pact"/> reads the state for the first time in its batch; <paramref name="actReads"/>: the actor's ACT reads so far.</summary>
    public void Read(PactRef pact, long actReads) => accesses.Add(new Access(pact, Write: false, Before: null, actReads));

    /// <summary>
    /// PACT <paramref name="pact"/> writes the state for the first time in its batch; the state before
    /// was <paramref name="before"/> (null: the state the batch started from).
    /// </summary>
    public void Write(PactRef pact, StateBeforeWrite<TState>? before, long actReads) => accesses.Add(new Access(pact, Write: true, before, actReads));

    /// <summary>
    /// PACT <paramref name="tid"/> aborted: if it wrote here, its write and every access after it are
    /// removed from the log. Returns null if it did not write here (or that was taken back already);
    /// else its write (the batch and the state before it), whether an ACT has read the state since
    /// (<paramref name="actReads"/> is the actor's count now), and the other PACTs that accessed the state after it.
    /// </summary>
    public (long Bid, StateBeforeWrite<TState>? Before, bool ReadByAct, ImmutableArray<PactRef> Readers)? TakeBack(long tid, long actReads)
    {
        var at = accesses.FindIndex(a => a.Write && a.Pact.Tid == tid);
        if (at < 0)
        {
            return null;
        }

        var write = accesses[at];
        var readers = ImmutableArray.CreateBuilder<PactRef>();
        for (var i = at + 1; i < accesses.Count; i++)
        {
            var reader = accesses[i].Pact;
            if (reader.Tid != tid && !readers.Contains(reader))
            {
                readers.Add(reader);
            }
        }

        accesses.RemoveRange(at, accesses.Count - at);
        return (write.Pact.Bid, write.Before, actReads > write.ActReads, readers.ToImmutable());
    }

    /// <summary>BatchCommit: the accesses of batches up to <paramref name="bid"/> can no longer be taken back.</summary>
    public void Committed(long bid)
    {
        var count = 0;
        while (count < accesses.Count && accesses[count].Pact.Bid <= bid)
        {
            count++;
        }

        if (count > 0)
        {
            accesses.RemoveRange(0, count);
        }
    }

    /// <summary>Abort cascade: batches <paramref name="from"/> through <paramref name="through"/> are gone here.</summary>
    public void Dropped(long from, long through) => accesses.RemoveAll(a => a.Pact.Bid >= from && a.Pact.Bid <= through);

    // One access; Before is the state before a write (null: the state its batch started from), and
    // ActReads the actor's ACT reads when it happened.
    private readonly record struct Access(PactRef Pact, bool Write, StateBeforeWrite<TState>? Before, long ActReads);
}
