using System.Diagnostics;
using Orleans.Core.Internal;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Between the modes of one invocation, on embedded silos: the finished mode's actors are let go
/// (Orleans' <c>DeactivateOnIdle</c>, through the grain management extension, as the nemesis asks)
/// and the garbage is collected, so the next mode runs as it would in an invocation of its own.
/// Otherwise every mode after the first runs beside the thousands of idle activations the modes
/// before it left (Orleans keeps an idle one for its collection age, and a Snapper actor holds
/// itself a while after its last transaction), whose heap slows each collection of the modes after
/// (docs/decisions.md). An actor let go comes back from its log when called; nothing of the
/// finished mode is read before that but its lists (listappend), which its log restores.
/// </summary>
internal static class FinishedMode
{
    private const int InFlight = 512;

    /// <summary>Lets <paramref name="actors"/> go and collects the garbage; returns how many did not answer the request, and the seconds it took.</summary>
    public static async Task<(int Failed, double Seconds)> LetGoAsync(IReadOnlyList<IAddressable> actors)
    {
        var started = Stopwatch.GetTimestamp();
        var failed = 0;
        for (var from = 0; from < actors.Count; from += InFlight)
        {
            var requests = new Task<bool>[Math.Min(InFlight, actors.Count - from)];
            for (var i = 0; i < requests.Length; i++)
            {
                requests[i] = DeactivateAsync(actors[from + i]);
            }

            failed += (await Task.WhenAll(requests)).Count(ok => !ok);
        }

        GC.Collect(GC.MaxGeneration, GCCollectionMode.Forced, blocking: true, compacting: true);
        return (failed, Stopwatch.GetElapsedTime(started).TotalSeconds);
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
}
