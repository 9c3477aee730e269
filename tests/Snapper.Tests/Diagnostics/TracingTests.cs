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
