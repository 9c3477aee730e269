using System.Collections.Immutable;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Serialization;
using SmallBank;
using Snapper.Coordination;
using Snapper.Tests.Infrastructure;
using Snapper.Protocol;

namespace Snapper.Tests.Serialization;

/// <summary>
/// Everything that crosses an actor boundary goes through Orleans' serializer (generated codecs):
/// each message type round-trips with every field, and immutable ones are not copied.
/// </summary>
public sealed class MessageSerializationTests
{
    private static readonly ServiceProvider Services = new ServiceCollection().AddSerializer().BuildServiceProvider();

    private static T RoundTrip<T>(T value)
    {
        var serializer = Services.GetRequiredService<Serializer<T>>();
        return serializer.Deserialize(serializer.SerializeToArray(value))!;
    }

    private static readonly ActorId X = ActorId.Create<ITestActor>("x");
    private static readonly ActorId Y = ActorId.Create<ITestActor>(7);

    [Fact]
    public void Identity_context_and_declaration_round_trip()
    {
        Assert.Equal(X, RoundTrip(X));
        Assert.Equal(Y, RoundTrip(Y));

        var declared = AccessSet.Of(X).And(Y, 2);
        var back = RoundTrip(declared);
        Assert.Equal(2, back.CallsOn(Y));
        Assert.Equal(1, back.CallsOn(X));
        Assert.Equal(declared.Accesses, back.Accesses);
        Assert.Equal(declared.ToString(), back.ToString());

        var ctx = new TxnContext(42, TxnMode.Pact, X, new DateTimeOffset(2026, 11, 22, 23, 0, 0, TimeSpan.Zero), bid: 40, declared: declared);
        var copy = RoundTrip(ctx);
        Assert.Equal((ctx.Tid, ctx.Mode, ctx.Root, ctx.Deadline, ctx.Bid), (copy.Tid, copy.Mode, copy.Root, copy.Deadline, copy.Bid));
        Assert.Equal(2, copy.Declared!.CallsOn(Y));

        // Immutable: Orleans' copier hands out the same instance instead of copying.
        Assert.Same(ctx, Services.GetRequiredService<DeepCopier<TxnContext>>().Copy(ctx));
    }

    [Fact]
    public void A_late_call_answer_carries_the_callee_s_result_or_failure_with_its_type()
    {
        var result = RoundTrip(new LateCallAnswer(true, new TransferNotice(X, [Y], 5m), null));
        Assert.True(result.Answered);
        var notice = Assert.IsType<TransferNotice>(result.Result);
        Assert.Equal((X, Y, 5m), (notice.From, Assert.Single(notice.To), notice.Amount));

        var boxed = RoundTrip(new LateCallAnswer(true, 7, null));
        Assert.Equal(7, Assert.IsType<int>(boxed.Result));

        var failed = RoundTrip(new LateCallAnswer(true, null, new TransactionAbortedException(AbortReason.User, "boom") { Tid = 3 }));
        Assert.Equal(AbortReason.User, Assert.IsType<TransactionAbortedException>(failed.Failure).Reason);

        Assert.False(RoundTrip(LateCallAnswer.NotAnswered).Answered);
    }

    [Fact]
    public void An_abort_keeps_its_reason_tid_and_detail()
    {
        var aborted = new TransactionAbortedException(AbortReason.SerializabilityViolation, "max(BeforeSet) ≥ min(AfterSet)") { Tid = 9, Reached = AccessSet.Of(X).And(Y, 3) };
        var back = RoundTrip(aborted);
        Assert.Equal(AbortReason.SerializabilityViolation, back.Reason);
        Assert.Equal(9, back.Tid);
        Assert.Equal(aborted.Message, back.Message);
        Assert.Equal(3, back.Reached!.CallsOn(Y)); // the client promotes from what the root sent
    }

    [Fact]
    public void An_abort_keeps_who_was_in_its_way()
    {
        var aborted = new TransactionAbortedException(AbortReason.WaitDie, "died") { Tid = 9, Blocker = new AbortBlocker(X, BlockedOn.Lock, [3, 5], 0) };
        var back = RoundTrip(aborted);
        Assert.Equal((X, BlockedOn.Lock, 0L), (back.Blocker!.Actor, back.Blocker.WaitedFor, back.Blocker.Bid));
        Assert.Equal([3L, 5L], back.Blocker.Tids.ToArray());
        Assert.Equal(aborted.Blocker, back.Blocker); // equal by value, tids included
        Assert.NotEqual(aborted.Blocker, aborted.Blocker with { Tids = [3, 6] });
        Assert.Equal(aborted.Message, back.Message);
        Assert.EndsWith($"(in the way: the lock of {X} held by 3, 5)", back.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Both_endings_a_caller_is_told_cross_the_wire_as_a_TransactionException()
    {
        // Serialized as their base type, as a caller catching TransactionException receives them.
        var inDoubt = RoundTrip<TransactionException>(new TransactionInDoubtException(11, "the root's answer was lost"));
        var asInDoubt = Assert.IsType<TransactionInDoubtException>(inDoubt);
        Assert.Equal((11L, "the root's answer was lost"), (asInDoubt.Tid, asInDoubt.Detail));
        Assert.Equal("[InDoubt] transaction 11: the root's answer was lost", asInDoubt.Message);

        var aborted = RoundTrip<TransactionException>(new TransactionAbortedException(AbortReason.Deadlock, "wait-die") { Tid = 12 });
        var asAborted = Assert.IsType<TransactionAbortedException>(aborted);
        Assert.Equal((AbortReason.Deadlock, 12L, "wait-die"), (asAborted.Reason, asAborted.Tid, asAborted.Detail));
    }

    [Fact]
    public void Protocol_messages_round_trip()
    {
        var sub = new SubBatch(100, 90, "silo/1", ImmutableArray.Create((100L, 1), (101L, 2)));
        var subBack = RoundTrip(sub);
        Assert.Equal((sub.Bid, sub.PrevBid, sub.Coordinator), (subBack.Bid, subBack.PrevBid, subBack.Coordinator));
        Assert.Equal(sub.Pacts.ToArray(), subBack.Pacts.ToArray());

        Assert.Equal(new HybridDecision(5, 4), RoundTrip(new HybridDecision(5, 4)));
        Assert.Equal(new TidRange(1024, 512), RoundTrip(new TidRange(1024, 512)));
        Assert.Equal(Snapper.Protocol.Vote.ReadOnly, RoundTrip(Snapper.Protocol.Vote.ReadOnly));
    }

    [Fact]
    public void The_token_round_trips_with_every_prevBid_and_names_each_actor_interface_once()
    {
        var token = new BatchToken { LastTid = 9_000, LastBid = 8_990, LastBidCoordinator = "silo/0", ResolvedThrough = 8_000, ReservedThrough = 1 << 20 };
        var accounts = Enumerable.Range(0, 300).Select(i => ActorId.Create<IAccountActor>(i)).ToArray();
        foreach (var (actor, i) in accounts.Select((a, i) => (a, i)).Append((X, 300)).Append((Y, 301)))
        {
            token.PrevBid[actor] = 8_500 + i;
        }

        var back = RoundTrip(token);
        Assert.Equal((token.LastTid, token.LastBid, token.LastBidCoordinator, token.ResolvedThrough, token.ReservedThrough), (back.LastTid, back.LastBid, back.LastBidCoordinator, back.ResolvedThrough, back.ReservedThrough));
        Assert.Equal(token.PrevBid.OrderBy(e => e.Value), back.PrevBid.OrderBy(e => e.Value));

        // The interface's name is written once, not once per account.
        var bytes = Services.GetRequiredService<Serializer<BatchToken>>().SerializeToArray(token);
        var name = System.Text.Encoding.UTF8.GetBytes(typeof(IAccountActor).FullName!);
        Assert.Equal(1, Occurrences(bytes, name));

        static int Occurrences(byte[] haystack, byte[] needle) =>
            Enumerable.Range(0, haystack.Length - needle.Length + 1).Count(i => haystack.AsSpan(i, needle.Length).SequenceEqual(needle));
    }

    [Fact]
    public void A_ring_view_round_trips_with_the_incarnation_of_each_silo_and_a_with_keeps_them()
    {
        var view = new Snapper.Protocol.RingView(3, ["a/0", "b/0"], 77) { Incarnations = System.Collections.Immutable.ImmutableDictionary<string, string>.Empty.Add("a", "S127.0.0.1:1:1").Add("b", "S127.0.0.1:2:2") };

        var back = RoundTrip(view);
        Assert.Equal((3L, 77L), (back.Epoch, back.TidFloor));
        Assert.Equal(["a/0", "b/0"], back.Members.ToArray());
        Assert.Equal(view.Incarnations.OrderBy(e => e.Key), back.Incarnations.OrderBy(e => e.Key));
        Assert.True(back.Has("a/0", "a", "S127.0.0.1:1:1"));
        Assert.False(back.Has("a/0", "a", "S127.0.0.1:1:9"));
        Assert.True(back.NamesAnotherIncarnation("a", "S127.0.0.1:1:9"));
        Assert.Equal(view.Incarnations, (back with { Epoch = 4 }).Incarnations);
        Assert.Empty(RoundTrip(Snapper.Protocol.RingView.Empty).Incarnations);
    }

    [Fact]
    public void Execution_info_comes_back_whole_from_a_nested_call()
    {
        // What a callee reports to its caller: participants with roles and calls, hybrid bounds, a commit
        // dependency by tid and root, and the first failure.
        var nested = new ExecutionInfo().Snapshot(Y, ParticipantRole.Writer, new BatchRef(30, "silo/0"), beforeCommitted: false, afterBid: 50, precedingActsMaxBeforeBid: 35, dependency: new ActDependency(17, Y), selfCalls: 2);
        nested.Fail(new InvalidOperationException("nested boom"));
        var lost = ActorId.Create<IAccountActor>(9);
        nested.AddUnanswered(lost); // a call of Y's whose answer never came
        var info = new ExecutionInfo().Snapshot(X, ParticipantRole.Reader, default, true, 0, 0, null);
        info.Merge(nested);

        var back = RoundTrip(info);
        Assert.Equal(new Participation(ParticipantRole.Writer, 2), back.Participants[Y]);
        Assert.Equal(new Participation(ParticipantRole.Reader, 1), back.Participants[X]);
        Assert.Equal(AccessSet.Of(X).And(Y, 2).And(lost).ToString(), back.Reached()!.ToString()); // what a promoted run declares
        Assert.Equal((35L, 50L), (back.Bounds!.MaxBeforeBid, back.Bounds.MinAfterBid));
        Assert.Equal([new BatchRef(30, "silo/0")], back.Bounds.BeforeBatches);
        Assert.True(back.AfterSetIncomplete); // X reported no batch after it
        Assert.Equal([new ActDependency(17, Y)], back.Dependencies!);
        Assert.IsType<InvalidOperationException>(back.Failure);
        Assert.Equal("nested boom", back.Failure!.Message);
        Assert.Equal([lost], back.Unanswered!);
        Assert.Equal(ParticipantRole.Visitor, back.Participants[lost].Role); // the root's Abort goes there
    }

    [Fact]
    public void After_commit_actions_cross_the_wire_in_execution_info_and_a_hand_over_and_merge_by_id()
    {
        var first = new Snapper.Logging.AfterCommitAction(40, X, 0, [1, 2, 3]);
        var second = new Snapper.Logging.AfterCommitAction(40, Y, 0, [4]);
        var nested = new ExecutionInfo();
        nested.AddAction(second);
        var info = new ExecutionInfo();
        info.AddAction(first);
        info.Merge(nested);
        info.Merge(nested); // the same action along a second path

        var back = RoundTrip(info);
        Assert.Equal(new HashSet<Snapper.Logging.AfterCommitId> { first.Id, second.Id }, back.Actions!.Keys.ToHashSet());
        Assert.Equal([1, 2, 3], back.Actions[first.Id].Message);

        var handover = new PactHandover(new ScheduleHandover(0, 0, [], null, [], [], [], [], [], [], []), [], null) { Actions = [(41L, [second])] };
        var handed = RoundTrip(handover);
        Assert.Equal(second.Id, Assert.Single(Assert.Single(handed.Actions).Actions).Id);
    }

    [Fact]
    public void What_a_cascade_tells_its_PACTs_crosses_the_wire_in_an_outcome_and_a_hand_over()
    {
        var outcome = RoundTrip(BatchOutcome.Abort(40, AbortBlocker.Batch(X, 30), AbortReason.LateCall));
        Assert.Equal((false, 40L, AbortReason.LateCall, 30L), (outcome.Committed, outcome.AbortedThrough, outcome.Cascade, outcome.Origin!.Bid));
        Assert.Equal(AbortReason.Cascading, RoundTrip(BatchOutcome.Abort(40)).Cascade);

        var handover = RoundTrip(new ScheduleHandover(0, 0, [], null, [], [], [], [(10, 19, AbortReason.Cascading), (20, 29, AbortReason.LateCall)], [], [], []));
        Assert.Equal([(10L, 19L, AbortReason.Cascading), (20L, 29L, AbortReason.LateCall)], handover.Aborted.ToArray());
    }
}
