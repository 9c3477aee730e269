using System.Diagnostics;

namespace Snapper.Diagnostics;

/// <summary>
/// Snapper's spans. A transaction's span starts at its root actor, inside the grain call that
/// started it, so with Orleans' activity propagation on (<c>AddActivityPropagation</c>) it is a
/// child of the caller's span; its phases are its children. Tags name the transaction (mode, tid,
/// bid) and how it ended (outcome, abort reason). Nothing is allocated when no one listens.
/// </summary>
internal static class SnapperTracing
{
    public const string Act = "snapper.act";
    public const string Pact = "snapper.pact";
    public const string Execute = "snapper.execute";
    public const string Prepare = "snapper.prepare";
    public const string Commit = "snapper.commit";
    public const string Abort = "snapper.abort";
    public const string BatchCommit = "snapper.batch_commit";

    public static readonly ActivitySource Source = new(SnapperDiagnostics.ActivitySourceName);

    /// <summary>The span of a transaction at its root, or null when no one listens.</summary>
    public static Activity? StartTransaction(TxnContext ctx)
    {
        var activity = Source.StartActivity(ctx.Mode == TxnMode.Pact ? Pact : Act);
        if (activity is { IsAllDataRequested: true })
        {
            activity.SetTag("snapper.mode", ctx.Mode == TxnMode.Pact ? "pact" : "act");
            activity.SetTag("snapper.tid", ctx.Tid);
            activity.SetTag("snapper.root", ctx.Root.ToString());
            if (ctx.Mode == TxnMode.Pact)
            {
                activity.SetTag("snapper.bid", ctx.Bid);
            }

            if (ctx.Promoted)
            {
                activity.SetTag("snapper.promoted", true); // run as a PACT after its ACT attempt lost a race
            }
        }

        return activity;
    }

    /// <summary>A phase of the current transaction (a child of <see cref="Activity.Current"/>), or null.</summary>
    public static Activity? StartPhase(string name) => Source.StartActivity(name);

    public static void Committed(Activity? activity) => activity?.SetTag("snapper.outcome", "committed");

    public static void Aborted(Activity? activity, TransactionAbortedException aborted)
    {
        if (activity is null)
        {
            return;
        }

        activity.SetTag("snapper.outcome", "aborted");
        activity.SetTag("snapper.abort_reason", aborted.Reason.ToString());
        if (aborted.Blocker is { } blocker)
        {
            // Who was in the way, as an event: where it waited, for what, and whom.
            activity.AddEvent(new ActivityEvent("snapper.blocked", tags: new ActivityTagsCollection
            {
                ["snapper.blocker.actor"] = blocker.Actor.ToString(),
                ["snapper.blocker.waited_for"] = blocker.WaitedFor.ToString(),
                ["snapper.blocker.tids"] = blocker.Tids.IsDefaultOrEmpty ? "" : string.Join(",", blocker.Tids),
                ["snapper.blocker.bid"] = blocker.Bid,
            }));
        }

        activity.SetStatus(ActivityStatusCode.Error, aborted.Message);
    }
}
