using System.Diagnostics.Metrics;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Counts Snapper's <c>snapper.transactions.retried</c>: ACT attempts that aborted for a concurrency
/// reason and were run again inside <c>RunAct</c> (<c>--act-attempts</c>), which the load loops never see.
/// </summary>
public sealed class RetryListener : IDisposable
{
    private readonly MeterListener listener = new();
    private long retried;

    /// <summary>Starts listening.</summary>
    public RetryListener()
    {
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == SnapperDiagnostics.MeterName && instrument.Name == SnapperDiagnostics.RetriedInstrument)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((_, count, _, _) => Interlocked.Add(ref retried, count));
        listener.Start();
    }

    /// <summary>Retries seen so far.</summary>
    public long Retried => Interlocked.Read(ref retried);

    /// <inheritdoc />
    public void Dispose() => listener.Dispose();
}
