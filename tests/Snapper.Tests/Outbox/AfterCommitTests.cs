using Microsoft.Extensions.DependencyInjection;
using Snapper.Configuration;
using Snapper.Hosting;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Outbox;

/// <summary>
/// After-commit actions (the transactional outbox) on a real silo: delivered once the transaction
/// committed, in every mode and call shape, never for one that aborted, retried when the handler
/// fails, and delivered after a restart when the silo stopped before it could.
/// </summary>
public sealed class AfterCommitTests
{
    private static ActorId Actor(string key) => ActorId.Create<INotifierActor>(key);

    private static Task<TestSilo> Start(Deliveries deliveries, Action<SnapperBuilder>? configure = null, ILogStorage? storage = null, int silos = 1) =>
        TestSilo.StartAsync(configure, services =>
        {
            services.AddSingleton(deliveries);
            services.AddSingleton<IAfterCommitHandler<Notice>, NoticeHandler>();
            if (storage is not null)
            {
                services.AddSingleton(storage);
            }
        }, silos);

    private static Task Delivered(Deliveries deliveries, params string[] texts) =>
        Poll.Until(() => texts.All(deliveries.Texts.Contains), $"{string.Join(", ", texts)} were delivered (so far: {string.Join(", ", deliveries.Texts)})");

    [Fact]
    public async Task An_ACTs_actions_from_a_nested_call_tree_with_a_call_back_are_delivered_once_each_with_distinct_stable_ids()
    {
        var deliveries = new Deliveries();
        await using var silo = await Start(deliveries);
        var (a, b) = (Actor("a"), Actor("b"));

        await silo.Client.RunAct<INotifierActor>(a, (x, ctx) => x.NotifyThenCallBack(ctx, "root", b, "nested", "back"));

        await Delivered(deliveries, "root", "nested", "back");
        await Task.Delay(200); // a second delivery would come at once
        var taken = deliveries.Taken;
        Assert.Equal(3, taken.Count);
        Assert.Equal(3, taken.Select(t => t.Context.Id).Distinct().Count());
        Assert.All(taken, t => Assert.Equal(taken[0].Context.Tid, t.Context.Tid));
        Assert.Equal(a, taken.Single(t => t.Notice.Text == "back").Context.Actor); // registered on the root, called back into
        Assert.Equal($"{taken[0].Context.Tid}/{b}/0", taken.Single(t => t.Notice.Text == "nested").Context.Id);
    }

    [Theory]
    [InlineData(false, false)] // read-only: nothing to commit but the action
    [InlineData(true, false)]  // one writer: no one-phase commit, the root logs the decision
    [InlineData(true, true)]   // early lock release
    public async Task A_single_actor_ACTs_action_is_delivered_whether_it_wrote_or_released_early(bool write, bool earlyLockRelease)
    {
        var deliveries = new Deliveries();
        await using var silo = await Start(deliveries, s => s.Configure(o => o.EarlyLockRelease = earlyLockRelease));

        await silo.Client.RunAct<INotifierActor>(Actor("solo"), (x, ctx) => x.Notify(ctx, "solo", write));

        await Delivered(deliveries, "solo");
    }

    [Fact]
    public async Task Parallel_calls_actions_in_a_PACT_and_in_an_early_lock_release_ACT_are_all_delivered()
    {
        var deliveries = new Deliveries();
        await using var silo = await Start(deliveries);
        var (a, b, c) = (Actor("p"), Actor("q"), Actor("r"));

        await silo.Client.RunPact<INotifierActor>(a, (x, ctx) => x.NotifyInParallel(ctx, "pact", b, c), AccessSet.Of(a).And(b).And(c));
        await silo.Client.RunAct<INotifierActor, bool>(a, async (x, ctx) =>
        {
            await x.NotifyInParallel(ctx, "elr", b, c);
            return true;
        }, new ActOptions { EarlyLockRelease = true });

        await Delivered(deliveries, "pact", "pact@q", "pact@r", "elr", "elr@q", "elr@r");
    }

    [Fact]
    public async Task An_aborted_transactions_actions_are_never_delivered_in_either_mode()
    {
        var deliveries = new Deliveries();
        await using var silo = await Start(deliveries);
        var (a, b) = (Actor("x"), Actor("y"));

        await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<INotifierActor>(a, (x, ctx) => x.NotifyThenThrow(ctx, "act-aborted")));
        // A PACT that aborts alone, in a batch beside one that commits.
        var aborted = silo.Client.RunPact<INotifierActor>(a, (x, ctx) => x.NotifyThenThrow(ctx, "pact-aborted"), AccessSet.Of(a));
        var committed = silo.Client.RunPact<INotifierActor>(b, (x, ctx) => x.Notify(ctx, "pact-committed", true), AccessSet.Of(b));
        await Assert.ThrowsAsync<TransactionAbortedException>(() => aborted);
        await committed;
        // The callee's part ends (its batch completes there, with the action) before the root fails.
        await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunPact<INotifierActor>(a, (x, ctx) => x.CallThenThrow(ctx, b, "pact-callee-aborted"), AccessSet.Of(a).And(b)));
        await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<INotifierActor>(a, (x, ctx) => x.CallThenThrow(ctx, b, "act-callee-aborted")));
        await silo.Client.RunAct<INotifierActor>(b, (x, ctx) => x.Notify(ctx, "act-committed", true));

        await Delivered(deliveries, "pact-committed", "act-committed");
        await Task.Delay(200);
        Assert.Equal(["pact-committed", "act-committed"], deliveries.Texts);
    }

    [Fact]
    public async Task A_failing_handler_is_tried_again_after_a_backoff_until_it_takes_the_action()
    {
        var deliveries = new Deliveries();
        deliveries.FailNext(2);
        await using var silo = await Start(deliveries);

        await silo.Client.RunAct<INotifierActor>(Actor("f"), (x, ctx) => x.Notify(ctx, "third time", true));

        await Delivered(deliveries, "third time");
        Assert.Equal(3, deliveries.Taken.Single().Context.Attempt);
        Assert.Equal(3, deliveries.Attempts);
    }

    [Fact]
    public async Task An_ACT_action_registered_after_its_call_answered_is_refused_not_dropped()
    {
        var deliveries = new Deliveries();
        await using var silo = await Start(deliveries);

        await silo.Client.RunAct<INotifierActor>(Actor("root"), (x, ctx) => x.CallLaterThenWait(ctx, Actor("late"), "late"));

        var refused = await deliveries.Stray.Task.WaitAsync(TimeSpan.FromSeconds(20));
        await Task.Delay(200);
        Assert.DoesNotContain("late", deliveries.Texts);
        Assert.IsType<SnapperException>(refused);
        Assert.Contains("outside a running call", refused!.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_action_no_handler_takes_aborts_its_transaction_with_one_line_naming_the_registration()
    {
        var deliveries = new Deliveries();
        await using var silo = await Start(deliveries);

        var refused = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<INotifierActor>(Actor("u"), (x, ctx) => x.NotifyUnhandled(ctx)));

        Assert.Equal(AbortReason.Failure, refused.Reason); // a misuse of the API, as a TxnContext used outside its transaction is
        Assert.Contains("AddAfterCommitHandler<Unhandled", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_silo_that_stopped_before_delivering_delivers_after_its_restart_with_the_same_id_and_a_delivered_one_is_not_delivered_again()
    {
        var storage = new InMemoryLogStorage();
        var first = new Deliveries();
        AfterCommitContext before;
        await using (var silo = await Start(first, storage: storage))
        {
            await silo.Client.RunAct<INotifierActor>(Actor("d"), (x, ctx) => x.Notify(ctx, "delivered", true));
            await Delivered(first, "delivered");
            before = first.Taken.Single().Context;
            await Poll.Until(() => Records(storage).Any(r => r is DeliveredRecord d && d.Actions.Any(id => id.ToString() == before.Id)), "the delivery is noted in the log");

            first.Hold = new TaskCompletionSource(); // the handler takes nothing more before the silo stops
            await silo.Client.RunPact<INotifierActor>(Actor("o"), (x, ctx) => x.Notify(ctx, "owed", true), AccessSet.Of(Actor("o")));
            await Poll.Until(() => first.Attempts == 2, "the owed action was handed to the handler");
        }

        Assert.DoesNotContain("owed", first.Texts);
        var second = new Deliveries();
        await using var restarted = await Start(second, storage: storage);

        await Delivered(second, "owed");
        await Task.Delay(200);
        Assert.Equal(["owed"], second.Texts);
        Assert.Equal(Actor("o"), second.Taken.Single().Context.Actor);
    }

    [Fact]
    public async Task Actions_cross_silos_to_their_decider_and_a_dead_deciders_owed_action_is_delivered_by_the_survivor()
    {
        var storage = new InMemoryLogStorage();
        var deliveries = new Deliveries();
        await using var silo = await Start(deliveries, s => s.Configure(o => o.CheckpointInterval = TimeSpan.Zero), storage, silos: 2);
        var (survivor, victim) = (silo.Cluster.Silos[0], silo.Cluster.Silos[1]);
        var onSilo = new Dictionary<string, ActorId>();
        for (var i = 0; i < 200 && onSilo.Count < 2; i++)
        {
            var id = Actor($"spread-{i}");
            await silo.Client.RunAct<INotifierActor, int>(id, (x, ctx) => x.Read(ctx));
            onSilo.TryAdd(silo.SiloOf(id)!, id);
        }

        Assert.True(onSilo.Count == 2, "random placement put 200 actors on one silo");
        var (here, there) = (onSilo[survivor.Name], onSilo[victim.Name]);

        // Registered on both silos, decided on the survivor: the victim's part crosses in the answer.
        await silo.Client.RunAct<INotifierActor>(here, (x, ctx) => x.NotifyThenCallBack(ctx, "root", there, "remote", "back"));
        await silo.Client.RunPact<INotifierActor>(here, (x, ctx) => x.NotifyInParallel(ctx, "pact", there, here), AccessSet.Of(here, 2).And(there));
        await Delivered(deliveries, "root", "remote", "back", "pact", $"pact@{there.Key}");

        // Decided on the victim, whose handler is held: committed, owed, and then the victim dies.
        deliveries.HoldOn = victim.Name;
        deliveries.Hold = new TaskCompletionSource();
        var attempts = deliveries.Attempts;
        await silo.Client.RunAct<INotifierActor>(there, (x, ctx) => x.Notify(ctx, "orphaned", true));
        await Poll.Until(() => deliveries.Attempts > attempts, "the victim's handler holds the action");
        await silo.Cluster.KillSiloAsync(victim);

        var until = DateTime.UtcNow + TimeSpan.FromSeconds(90); // the death vote and the failover first
        while (!deliveries.Texts.Contains("orphaned"))
        {
            Assert.True(DateTime.UtcNow < until, "the survivor did not deliver the dead decider's owed action");
            await Task.Delay(50);
        }

        Assert.Equal(there, deliveries.Taken.Single(t => t.Notice.Text == "orphaned").Context.Actor);
    }

    private static List<LogRecord> Records(InMemoryLogStorage storage) =>
        [.. LogRecovery.ReadAllAsync(storage, CancellationToken.None).GetAwaiter().GetResult().SelectMany(l => l.Records)];
}
