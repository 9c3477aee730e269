using SmallBank;

namespace Snapper.Tests.Abstractions;

public sealed class AbstractionsTests
{
    [Fact]
    public void Actor_ids_of_different_types_with_the_same_key_differ()
    {
        var account = ActorId.Create<IAccountActor>(1);
        var plain = ActorId.Create<IPlainAccountActor>(1);

        Assert.NotEqual(account, plain);
        Assert.Equal(account, ActorId.Create<IAccountActor>("1"));
        Assert.Equal("SmallBank.IAccountActor/1", account.ToString());
        Assert.Throws<ArgumentException>(() => ActorId.Create(typeof(AccountActor), "1"));
        Assert.Throws<ArgumentException>(() => ActorId.Create<IAccountActor>(""));
    }

    [Fact]
    public void An_access_set_adds_up_calls_per_actor_and_refuses_nonsense()
    {
        var a = ActorId.Create<IAccountActor>(1);
        var b = ActorId.Create<IAccountActor>(2);

        var set = AccessSet.Of(a).And(b, 2).And(a);

        Assert.Equal(2, set.CallsOn(a));
        Assert.Equal(2, set.CallsOn(b));
        Assert.Equal(0, set.CallsOn(ActorId.Create<IAccountActor>(3)));
        Assert.Equal(new Dictionary<ActorId, int> { [a] = 2, [b] = 2 }, set.Accesses);
        Assert.Equal($"{a}×2, {b}×2", set.ToString()); // in declaration order
        var first = AccessSet.Of(a);
        Assert.Equal(2, first.And(a).CallsOn(a));
        Assert.Equal(1, first.CallsOn(a)); // And makes a new set
        Assert.Equal(0, first.CallsOn(b));
        Assert.Contains("at least one call", Assert.Throws<ArgumentOutOfRangeException>(() => set.And(a, 0)).Message);
        Assert.Throws<ArgumentException>(() => AccessSet.Of(default));
    }

    [Fact]
    public void An_abort_message_carries_reason_and_tid()
    {
        var e = new TransactionAbortedException(AbortReason.WaitDie, "died") { Tid = 12 };
        Assert.Equal("[WaitDie] transaction 12: died", e.Message);
        Assert.Equal("died", e.Detail);
    }
}
