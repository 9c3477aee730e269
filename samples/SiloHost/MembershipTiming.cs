using Orleans.Configuration;

namespace SiloHost;

/// <summary>
/// <c>--membership-timeouts fast</c>: Orleans' membership timing for a test cluster on one machine
/// (scripts/chaos.sh), where a silo that stops answering should be declared dead, and a paused one
/// that wakes up should learn it, in seconds rather than Orleans' quarter of a minute and minute.
/// </summary>
public static class MembershipTiming
{
    /// <summary>How long a silo may answer no probe before it is voted dead: three missed probes of at most <c>MaxProbeTimeout</c> (Orleans: 60 s).</summary>
    public static readonly TimeSpan FailureDetection = TimeSpan.FromSeconds(6);

    /// <summary>Sets the lowered membership timing; the counts (three missed probes, two votes) stay Orleans' own.</summary>
    public static void Fast(ClusterMembershipOptions o)
    {
        o.ProbeTimeout = TimeSpan.FromSeconds(1);             // Orleans: 5 s, adapted between half and four times it
        o.MaxProbeTimeout = FailureDetection / 3;             // Orleans: 20 s; three times it is also how long a connection
                                                              // that received anything keeps its silo from being voted dead
        o.DeathVoteExpirationTimeout = TimeSpan.FromSeconds(10); // Orleans: 2 min
        o.TableRefreshTimeout = TimeSpan.FromSeconds(2);      // Orleans: 60 s; a silo that was paused reads that it is dead
        o.IAmAliveTablePublishTimeout = TimeSpan.FromSeconds(5); // Orleans: 30 s
    }

    /// <summary>
    /// The distributed grain directory's lease on a dead silo's grains, which runs from the silo's
    /// estimated failure (its declaration less <see cref="FailureDetection"/>): with Orleans' own
    /// timing the 60 s detection window outlasts the 30 s lease, so a dead silo's grains activate
    /// again at once; the lowered timing keeps it that way instead of holding them 24 s more.
    /// </summary>
    public static void Fast(GrainDirectoryOptions o) => o.RangeLeaseDuration = FailureDetection;
}
