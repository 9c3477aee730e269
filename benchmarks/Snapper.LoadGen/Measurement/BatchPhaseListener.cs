using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Listens to Snapper's <c>snapper.pact.batch_phase</c> histogram, so a run can say where its
/// PACTs' latency went: waiting for their batch to form, the batch running on its actors, or the
/// batch waiting to commit behind the batches before it. Only batches measured inside the window
/// count: a nemesis acts only there.
/// </summary>
public sealed class BatchPhaseListener : IDisposable
{
    private readonly MeterListener listener = new();
    private readonly ConcurrentQueue<(long At, string Phase, double Ms)> measured = new();

    /// <summary>Starts listening.</summary>
    public BatchPhaseListener()
    {
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == SnapperDiagnostics.MeterName && instrument.Name == SnapperDiagnostics.BatchPhaseInstrument)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<double>((_, ms, tags, _) =>
        {
            foreach (var tag in tags)
            {
                if (tag is { Key: "phase", Value: string phase })
                {
                    measured.Enqueue((Stopwatch.GetTimestamp(), phase, ms));
                }
            }
        });
        listener.Start();
    }

    /// <summary>The phases' times of the batches measured inside <paramref name="window"/>, or null if none was.</summary>
    public BatchPhases? Summary(MeasurementWindow window)
    {
        ArgumentNullException.ThrowIfNull(window);
        var inside = measured.Where(m => m.At >= window.Start && m.At < window.End).ToList();
        if (inside.Count == 0)
        {
            return null;
        }

        LatencySummary? Of(string phase) => LatencySummary.Of([.. inside.Where(m => m.Phase == phase).Select(m => m.Ms).Order()]);
        return new BatchPhases(Of(SnapperDiagnostics.BatchPhaseFormed), Of(SnapperDiagnostics.BatchPhaseCompleted), Of(SnapperDiagnostics.BatchPhaseCommitted));
    }

    /// <inheritdoc />
    public void Dispose() => listener.Dispose();
}
