using System.Diagnostics.Metrics;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Listens to Snapper's <c>snapper.pact.batch_size</c> histogram, so a run can report how many
/// PACTs the coordinator ring put in each batch (batching is where PACT's advantage comes from).
/// </summary>
public sealed class BatchSizeListener : IDisposable
{
    private readonly MeterListener listener = new();
    private long batches;
    private long pacts;

    /// <summary>Starts listening.</summary>
    public BatchSizeListener()
    {
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == SnapperDiagnostics.MeterName && instrument.Name == SnapperDiagnostics.BatchSizeInstrument)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<int>((_, size, _, _) =>
        {
            Interlocked.Increment(ref batches);
            Interlocked.Add(ref pacts, size);
        });
        listener.Start();
    }

    /// <summary>Batches and PACTs seen so far.</summary>
    public (long Batches, long Pacts) Snapshot() => (Interlocked.Read(ref batches), Interlocked.Read(ref pacts));

    /// <inheritdoc />
    public void Dispose() => listener.Dispose();
}
