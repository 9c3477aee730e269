using System.Diagnostics.Metrics;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Counts Snapper's <c>snapper.transactions.retried</c> by mode: ACT attempts that aborted for a
/// concurrency reason and were run again inside <c>RunAct</c> (<c>--act-attempts</c>), and PACTs a
/// cascade aborted that <c>RunPact</c> ran again (<c>--pact-attempts</c>), which the load loops never
/// see; <c>snapper.transactions.promoted</c>, ACTs run again as PACTs (<c>--promote</c>); and
/// <c>snapper.transactions.reconnaissance</c>, the reconnaissance runs of promoted ACTs.
/// </summary>
public sealed class RetryListener : IDisposable
{
    private readonly MeterListener listener = new();
    private long acts;
    private long pacts;
    private long promotions;
    private long promotedCommits;
    private long promotedAtOnce;
    private long reconnaissance;

    /// <summary>Starts listening.</summary>
    public RetryListener()
    {
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == SnapperDiagnostics.MeterName && instrument.Name is SnapperDiagnostics.RetriedInstrument or SnapperDiagnostics.PromotedInstrument or SnapperDiagnostics.ReconnaissanceInstrument)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        listener.SetMeasurementEventCallback<long>((instrument, count, tags, _) =>
        {
            if (instrument.Name == SnapperDiagnostics.ReconnaissanceInstrument)
            {
                Interlocked.Add(ref reconnaissance, count);
                return;
            }

            if (instrument.Name == SnapperDiagnostics.PromotedInstrument)
            {
                // Tagged outcome=committed|aborted and start=act|pact: one per promoted ACT.
                Interlocked.Add(ref promotions, count);
                foreach (var tag in tags)
                {
                    if (tag.Key == "outcome" && Equals(tag.Value, "committed"))
                    {
                        Interlocked.Add(ref promotedCommits, count);
                    }
                    else if (tag.Key == "start" && Equals(tag.Value, "pact"))
                    {
                        Interlocked.Add(ref promotedAtOnce, count);
                    }
                }

                return;
            }

            // Tagged mode=act (RunAct, a promoted ACT's runs too) or mode=pact (RunPact, a PACT a
            // cascade aborted); reason=late_call for a PACT run again after a late call, which is
            // not an attempt of --pact-attempts.
            bool? pact = null;
            foreach (var tag in tags)
            {
                if (tag.Key == "reason" && Equals(tag.Value, "late_call"))
                {
                    return;
                }

                if (tag.Key == "mode")
                {
                    pact = Equals(tag.Value, "pact");
                }
            }

            if (pact is { } isPact)
            {
                Interlocked.Add(ref isPact ? ref pacts : ref acts, count);
            }
        });
        listener.Start();
    }

    /// <summary>ACT attempts retried so far (<c>--act-attempts</c>).</summary>
    public long RetriedActs => Interlocked.Read(ref acts);

    /// <summary>PACT attempts retried so far (<c>--pact-attempts</c>).</summary>
    public long RetriedPacts => Interlocked.Read(ref pacts);

    /// <summary>ACTs run again as PACTs so far (<c>--promote</c>), however they ended.</summary>
    public long Promotions => Interlocked.Read(ref promotions);

    /// <summary>ACTs that started as PACTs at once, with no ACT attempt before, so far.</summary>
    public long PromotedAtOnce => Interlocked.Read(ref promotedAtOnce);

    /// <summary>Promoted ACTs that committed so far.</summary>
    public long PromotedCommits => Interlocked.Read(ref promotedCommits);

    /// <summary>Reconnaissance runs of promoted ACTs so far.</summary>
    public long Reconnoitred => Interlocked.Read(ref reconnaissance);

    /// <inheritdoc />
    public void Dispose() => listener.Dispose();
}
