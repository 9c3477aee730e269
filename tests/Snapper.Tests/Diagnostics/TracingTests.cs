using System.Collections.Concurrent;
using System.Diagnostics;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Diagnostics;

/// <summary>
/// The <c>Snapper</c> activity source: one span per transaction at its root, tagged with how it
/// ended, with its phases as children, inside the caller's trace when Orleans propagates activities.
/// </summary>
public sealed class TracingTests : IDisposable
{
    private readonly ConcurrentBag<Activity> stopped = [];
    private readonly ActivityListener listener;

    public TracingTests()
    {
        listener = new ActivityListener
        {
            // Orleans starts its call spans, and so propagates the trace, only when someone listens to them.
            ShouldListenTo = source => source.Name is SnapperDiagnostics.ActivitySourceName or "Snapper.Tests" || source.Name.StartsWith("Microsoft.Orleans", StringComparison.Ordinal),
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = stopped.Add,
        };
        ActivitySource.AddActivityListener(listener);
    }

    public void Dispose() => listener.Dispose();

    [Fact]
    public async Task A_committed_ACT_has_a_span_with_its_execute_prepare_and_commit_phases_in_the_callers_trace()
    {
        await using var silo = await TestSilo.StartAsync(activityPropagation: true);
        var (root, other) = (ActorId.Create<ITestActor>("trace-root"), ActorId.Create<ITestActor>("trace-other"));
        using var caller = new ActivitySource("Snapper.Tests");
        ActivityTraceId traceId;
        using (var test = caller.StartActivity("test"))
        {
            traceId = test!.TraceId;
            await silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.AddThenCall(ctx, 1, other, 2));
        }

        var span = await SpanOf(root, "snapper.act");
        Assert.Equal("committed", span.GetTagItem("snapper.outcome"));
        Assert.Equal("act", span.GetTagItem("snapper.mode"));
        Assert.NotNull(span.GetTagItem("snapper.tid"));
        Assert.Equal(traceId, span.TraceId); // inside the caller's trace, through Orleans' propagation
        Assert.Equal(["snapper.commit", "snapper.execute", "snapper.prepare"], ChildrenOf(span));
    }

    [Fact]
    public async Task An_aborted_ACT_has_a_span_with_its_reason_and_an_abort_phase()
    {
        await using var silo = await TestSilo.StartAsync();
        var root = ActorId.Create<ITestActor>("trace-aborting");

        await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.AddThenAbort(ctx, 1, AbortReason.User)));

        var span = await SpanOf(root, "snapper.act");
        Assert.Equal("aborted", span.GetTagItem("snapper.outcome"));
        Assert.Equal("User", span.GetTagItem("snapper.abort_reason"));
        Assert.Equal(ActivityStatusCode.Error, span.Status);
        Assert.Contains("snapper.abort", ChildrenOf(span));
    }

    /// <summary>Issue 54: who was in the way is the span's <c>snapper.blocked</c> event, and the abort metric's tag.</summary>
    [Fact]
    public async Task A_wait_die_abort_names_its_blocker_in_a_span_event_and_tags_the_abort_metric_with_its_type()
    {
        var aborts = new ConcurrentQueue<(string? Reason, string? BlockerType)>();
        using var meter = new System.Diagnostics.Metrics.MeterListener();
        meter.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == SnapperDiagnostics.MeterName && instrument.Name == "snapper.transactions.aborted")
            {
                l.EnableMeasurementEvents(instrument);
            }
        };
        meter.SetMeasurementEventCallback<long>((_, _, tags, _) =>
        {
            var named = tags.ToArray();
            aborts.Enqueue((named.SingleOrDefault(t => t.Key == "reason").Value as string, named.SingleOrDefault(t => t.Key == "blocker.actor_type").Value as string));
        });
        meter.Start();

        await using var silo = await TestSilo.StartAsync(s => s.Configure(o => o.Promote = false));
        var (held, root) = (ActorId.Create<ITestActor>("trace-held"), ActorId.Create<ITestActor>("trace-dies"));
        silo.Gates.Signal("holder may lock");
        var holder = silo.Client.RunAct<ITestActor>(held, (a, ctx) => a.AddBetweenGates(ctx, "holder may lock", "holder locked", "holder release"));
        await silo.Gates.Until("holder locked");

        var died = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<ITestActor>(root, (a, ctx) => a.AddThenCall(ctx, 1, held, 1)));
        silo.Gates.Signal("holder release");
        await holder;

        var span = await SpanOf(root, "snapper.act");
        var blocked = Assert.Single(span.Events, e => e.Name == "snapper.blocked");
        var tags = blocked.Tags.ToDictionary(t => t.Key, t => t.Value);
        Assert.Equal(held.ToString(), tags["snapper.blocker.actor"]);
        Assert.Equal("Lock", tags["snapper.blocker.waited_for"]);
        Assert.Equal(string.Join(",", died.Blocker!.Tids), tags["snapper.blocker.tids"]);
        Assert.Contains(("WaitDie", typeof(ITestActor).FullName), aborts);
    }

    [Fact]
    public async Task A_committed_PACT_has_a_span_with_its_batch_and_its_execute_and_batch_commit_phases()
    {
        await using var silo = await TestSilo.StartAsync();
        var (root, other) = (ActorId.Create<ITestActor>("trace-pact"), ActorId.Create<ITestActor>("trace-pact-other"));

        await silo.Client.RunPact<ITestActor>(root, (a, ctx) => a.AddThenCall(ctx, 1, other, 2), AccessSet.Of(root).And(other));

        var span = await SpanOf(root, "snapper.pact");
        Assert.Equal("committed", span.GetTagItem("snapper.outcome"));
        Assert.True(span.GetTagItem("snapper.bid") is long bid && bid > 0);
        Assert.Equal(["snapper.batch_commit", "snapper.execute"], ChildrenOf(span));
    }

    // The root's span stops after the caller has its answer: wait for it.
    private async Task<Activity> SpanOf(ActorId root, string name)
    {
        Activity? span = null;
        await Poll.Until(() => (span = stopped.FirstOrDefault(a => a.OperationName == name && (string?)a.GetTagItem("snapper.root") == root.ToString())) is not null, $"no {name} span for {root}");
        return span!;
    }

    private List<string> ChildrenOf(Activity span) =>
        [.. stopped.Where(a => a.Source.Name == SnapperDiagnostics.ActivitySourceName && a.ParentSpanId == span.SpanId && a.TraceId == span.TraceId).Select(a => a.OperationName).Distinct().Order(StringComparer.Ordinal)];
}
