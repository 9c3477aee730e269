using System.Diagnostics;
using Orleans.Core.Internal;
using Snapper.Checkpointing;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Between the modes of one invocation, on embedded silos that log: the finished mode's actors are
/// let go (Orleans' <c>DeactivateOnIdle</c>, through the grain management extension, as the nemesis
/// asks), the log is checkpointed (unless checkpoints are off) and the garbage collected, so the next
/// mode runs as it would in an invocation of its own. Otherwise every mode after the first runs
/// beside the thousands of idle activations the modes before it left (Orleans keeps an idle one for
/// its collection age, and a Snapper actor holds itself a while after its last transaction), whose
/// heap slows each collection, and the first checkpoint round, over the whole run's log, falls in a
/// later mode's window (docs/decisions.md). An actor let go comes back from its log when called.
/// </summary>
internal static class FinishedMode
{
    private const int InFlight = 512;

    /// <summary>Lets <paramref name="actors"/> go, checkpoints if <paramref name="checkpoint"/>, collects the garbage; says how it went.</summary>
    public static async Task<string> LetGoAsync(IReadOnlyList<IAddressable> actors, IGrainFactory grains, bool checkpoint)
    {
        var started = Stopwatch.GetTimestamp();
        var stayed = 0;
        for (var from = 0; from < actors.Count; from += InFlight)
        {
            var requests = new Task<bool>[Math.Min(InFlight, actors.Count - from)];
            for (var i = 0; i < requests.Length; i++)
            {
                requests[i] = DeactivateAsync(actors[from + i]);
            }

            stayed += (await Task.WhenAll(requests)).Count(ok => !ok);
        }

        var checkpointed = checkpoint ? await CheckpointAsync(grains) : null;
        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        return FormattableString.Invariant(
            $"its actors let go{(checkpoint ? ", the log checkpointed" : "")} and the garbage collected before the next mode ({Stopwatch.GetElapsedTime(started).TotalSeconds:F1}s{(stayed > 0 ? $"; {stayed} actor(s) did not answer" : "")}{checkpointed}).");
    }

    private static async Task<bool> DeactivateAsync(IAddressable actor)
    {
        try
        {
            await actor.AsReference<IGrainManagementExtension>().DeactivateOnIdle().AsTask().WaitAsync(Nemesis.NemesisLoop.RequestPatience);
            return true;
        }
#pragma warning disable CA1031 // One that does not go stays, as it would without this; the next mode still runs.
        catch (Exception)
#pragma warning restore CA1031
        {
            return false;
        }
    }

    // Null when the round got through; else why not (the scheduled rounds go on as before).
    private static async Task<string?> CheckpointAsync(IGrainFactory grains)
    {
        try
        {
            await grains.GetGrain<ICheckpointer>(0).Run();
            return null;
        }
#pragma warning disable CA1031 // A round given up leaves the log as it was; the next mode still runs.
        catch (Exception e)
#pragma warning restore CA1031
        {
            return $"; the checkpoint was given up: {e.Message.Split('\n')[0]}";
        }
    }
}
