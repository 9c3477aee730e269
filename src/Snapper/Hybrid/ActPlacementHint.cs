namespace Snapper.Hybrid;

/// <summary>
/// What an ACT's nested call tells the actor it reaches about the ACT's place among batches so far:
/// max(BeforeSet) as the caller knows it, carried in Orleans' <see cref="RequestContext"/> (the
/// TxnContext is the user's argument and the same for every call). The callee places the ACT before
/// its queued batches beyond that bid (<see cref="Scheduling.LocalSchedule.JoinAct"/>), so they follow it
/// (AfterSet) instead of preceding it, which would fail max(BeforeSet) &lt; min(AfterSet) whenever a
/// batch was emitted while the ACT travelled from one actor to the next.
/// </summary>
internal static class ActPlacementHint
{
    private const string Key = "snapper.act.maxBefore";

    /// <summary>Caller: the ACT's max(BeforeSet) so far, for the call about to be made in this async flow.</summary>
    public static void Set(long maxBeforeBid)
    {
        if (maxBeforeBid > 0)
        {
            RequestContext.Set(Key, maxBeforeBid);
        }
    }

    /// <summary>Callee: the hint the incoming call carries, 0 if none (the ACT's first actor, or no batch seen yet).</summary>
    public static long Read() => RequestContext.Get(Key) is long bid ? bid : 0;
}
