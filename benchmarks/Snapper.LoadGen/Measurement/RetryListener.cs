using System.Diagnostics.Metrics;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Counts Snapper's <c>snapper.transactions.retried</c> by mode: ACT attempts that aborted for a
/// concurrency reason and were run again inside <c>RunAct</c> (<c>--act-attempts</c>), and PACTs a
/// cascade aborted that <c>RunPact</c> ran again (<c>--pact-attempts</c>), which the load loops never see.
/// </summary>
public sealed class RetryListener : IDisposable
{
    private readonly MeterListener listener = new();
    private long acts;
    private long pacts;

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
        listener.SetMeasurementEventCallback<long>((_, count, tags, _) =>
        {
            // Tagged mode=act (RunAct) or mode=pact (RunPact, a PACT a cascade aborted).
            foreach (var tag in tags)
            {
                if (tag.Key == "mode")
                {
                    Interlocked.Add(ref Equals(tag.Value, "pact") ? ref pacts : ref acts, count);
                    return;
                }
            }
        });
        listener.Start();
    }

    /// <summary>ACT attempts retried so far (<c>--act-attempts</c>).</summary>
    public long RetriedActs => Interlocked.Read(ref acts);

    /// <summary>PACT attempts retried so far (<c>--pact-attempts</c>).</summary>
    public long RetriedPacts => Interlocked.Read(ref pacts);

    /// <inheritdoc />
    public void Dispose() => listener.Dispose();
}
