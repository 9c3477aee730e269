using Snapper.Configuration;

namespace Snapper.Coordination;

/// <summary>
/// How long this silo's PACT batches typically take from emission to commit (the median of the last
/// <see cref="Window"/>), and the deadlock timeout that follows from it (Snapper §4.4.2).
/// </summary>
/// <remarks>
/// <para>An ACT that waits for a batch does not know whether it waits on a cycle (PACT waits for ACT
/// waits for PACT) or on a batch that is merely slow. The cycles that can be seen are caught without
/// a timeout (a batch found behind the ACT elsewhere dooms the wait at once); the timeout is the
/// safety net for the rest, so it must not fire on an ordinary batch: it is
/// <see cref="SnapperOptions.DeadlockTimeout"/> or <see cref="Multiple"/> typical batches, whichever
/// is longer.</para>
/// <para><b>Why a median, and why a ceiling below the declaration timeout.</b> A batch caught in an
/// unseen cycle is held up for the whole deadlock timeout, so its latency is several typical ones.
/// Fed into a mean, each such batch raised the next timeout, which held the next cycle longer: a
/// loop that under steady cycles grew the wait until a stalled batch outlived
/// <see cref="SnapperOptions.DeclarationTimeout"/> and the coordinator's declaration sweep aborted an
/// innocent PACT (and cascaded). The median ignores the stalled tail while fewer than half the
/// batches stall; the ceiling (a quarter of the shorter of the declaration and transaction
/// timeouts) makes an ACT give up on a cycle well before the coordinator would give up on the batch.</para>
/// <para><b>Only batches committed lately count.</b> Batches that commit no more leave their last
/// latencies behind: those of a workload that has ended, or of a slow spell that has passed; or
/// none commit because they wait behind ACTs caught in cycles the detector does not see, which
/// only this timeout breaks. Held at such a stale figure (2.5 s after a delayed PACT workload on
/// one silo of two), every such cycle lasted the whole timeout, one after the other along the
/// lock queues, and the ACTs committed nothing for ten seconds and more. So a latency counts for
/// <see cref="Fresh"/> only, and with fewer than <see cref="Quorum"/> that recent the timeout is the
/// configured floor: where batches commit that sparsely, the few that do are often the very ones a
/// cycle held for the whole timeout, and their median would raise the next timeout to the ceiling
/// (the loop a mean made, back through a small sample).</para>
/// <para>Updated by this silo's coordinators as their batches commit, read by its actors whenever
/// an ACT waits for a batch.</para>
/// </remarks>
internal sealed class BatchLatency(TimeProvider clock)
{
    /// <summary>How many typical batches an ACT waits for before taking the wait for a deadlock.</summary>
    public const int Multiple = 4;

    /// <summary>How many of the latest batches the typical latency is the median of.</summary>
    public const int Window = 32;

    /// <summary>How long a batch's latency speaks for the batches now.</summary>
    public static readonly TimeSpan Fresh = TimeSpan.FromSeconds(1);

    /// <summary>How many latencies within <see cref="Fresh"/> it takes for their median to count.</summary>
    public const int Quorum = Window / 4;

    private readonly Lock gate = new();
    private readonly long[] recent = new long[Window];
    private readonly long[] committedAt = new long[Window]; // clock timestamps
    private int count;
    private int next;
    private long typicalTicks;
    private long lastCommittedAt;

    /// <summary>The typical latency of the batches committed within <see cref="Fresh"/> (zero if fewer than <see cref="Quorum"/> were).</summary>
    public TimeSpan Typical => Volatile.Read(ref count) > 0 && clock.GetElapsedTime(Volatile.Read(ref lastCommittedAt)) <= Fresh
        ? TimeSpan.FromTicks(Volatile.Read(ref typicalTicks))
        : TimeSpan.Zero;

    /// <summary>A batch committed <paramref name="latency"/> after it was emitted.</summary>
    public void Observe(TimeSpan latency)
    {
        Span<long> sorted = stackalloc long[Window];
        lock (gate)
        {
            var now = clock.GetTimestamp(); // under the gate: the last commit's time never goes back
            recent[next] = latency.Ticks;
            committedAt[next] = now;
            next = (next + 1) % Window;
            Volatile.Write(ref count, Math.Min(count + 1, Window));
            var fresh = 0;
            for (var i = 0; i < count; i++)
            {
                if (clock.GetElapsedTime(committedAt[i], now) <= Fresh)
                {
                    sorted[fresh++] = recent[i];
                }
            }

            sorted = sorted[..fresh]; // this batch's at least
            sorted.Sort();
            // The lower median: lean towards batches that were not held up.
            Volatile.Write(ref typicalTicks, fresh >= Quorum ? sorted[(fresh - 1) / 2] : 0);
            Volatile.Write(ref lastCommittedAt, now);
        }
    }

    /// <summary>The deadlock timeout now, under <paramref name="options"/>: the configured floor, longer while batches are slow, never past the ceiling.</summary>
    public TimeSpan DeadlockTimeout(SnapperOptions options)
    {
        var floor = options.DeadlockTimeout;
        var shorter = options.DeclarationTimeout < options.TransactionTimeout ? options.DeclarationTimeout : options.TransactionTimeout;
        var ceiling = shorter / 4 > floor ? shorter / 4 : floor;
        var scaled = Typical * Multiple;
        return scaled <= floor ? floor : scaled < ceiling ? scaled : ceiling;
    }
}
