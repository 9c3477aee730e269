using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection;
using Snapper.Diagnostics;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Diagnostics;

/// <summary>
/// <c>snapper.pact.batch_phase</c>: where a PACT's latency went, by phase of its batch (formed,
/// completed, committed), so that a slow batch can be told from a batch slow to commit.
/// </summary>
public sealed class BatchPhaseMetricTests
{
    [Fact]
    public async Task A_batch_held_up_on_an_actor_reports_the_hold_as_its_completed_phase_and_then_commits()
    {
        var phases = new ConcurrentQueue<(string Phase, double Ms)>();
        Meter? ours = null; // this test's silo's: other tests' silos in this process report too
        using var meter = new MeterListener();
        meter.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == SnapperDiagnostics.MeterName && instrument.Name == SnapperDiagnostics.BatchPhaseInstrument)
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        meter.SetMeasurementEventCallback<double>((instrument, ms, tags, _) =>
        {
            if (!ReferenceEquals(instrument.Meter, Volatile.Read(ref ours)))
            {
                return;
            }

            foreach (var tag in tags)
            {
                if (tag is { Key: "phase", Value: string phase })
                {
                    phases.Enqueue((phase, ms));
                }
            }
        });
        meter.Start();

        await using var silo = await TestSilo.StartAsync();
        Volatile.Write(ref ours, silo.Services.GetRequiredService<SnapperMetrics>().Meter);
        var actor = ActorId.Create<ITestActor>("phases-held");
        silo.Gates.Signal("phases may start");
        var pact = silo.Client.RunPact<ITestActor>(actor, (a, ctx) => a.AddBetweenGates(ctx, "phases may start", "phases started", "phases release"), AccessSet.Of(actor));
        await silo.Gates.Until("phases started");
        await Task.Delay(TimeSpan.FromMilliseconds(500));
        silo.Gates.Signal("phases release");
        await pact;

        await Poll.Until(() => phases.Any(p => p.Phase == SnapperDiagnostics.BatchPhaseCompleted && p.Ms >= 500), "the held batch reports its completed phase");
        Assert.Contains(phases, p => p.Phase == SnapperDiagnostics.BatchPhaseFormed && p.Ms >= 0);
        Assert.Contains(phases, p => p.Phase == SnapperDiagnostics.BatchPhaseCommitted && p.Ms >= 0);
        Assert.DoesNotContain(phases, p => p.Ms < 0);
    }
}
