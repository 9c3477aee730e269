using Microsoft.Extensions.DependencyInjection;
using SmallBank;
using Snapper.Serialization;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Regression;

/// <summary>
/// An activation takes its actor's committed state out of the silo's memory (and out of every other
/// silo's) before it builds its engines; when it then failed (a state that does not deserialize,
/// a failover that does not end in time), nothing gave the state back, and the next activation
/// started from the logs as the silo read them at its start: every write since was lost (found by
/// a review of issue 52's plan).
/// </summary>
public sealed class FailedActivationRegressionTests
{
    [Fact]
    public async Task An_activation_that_fails_after_taking_its_state_gives_it_back_to_the_next()
    {
        var serializer = new RefusingSerializer();
        await using var silo = await TestSilo.StartAsync(
            s => s.Configure(o => o.TransactionTimeout = TimeSpan.FromSeconds(4)), // an idle actor is let go within a second
            services => services.AddSingleton<IStateSerializer>(sp => serializer.Over(ActivatorUtilities.CreateInstance<OrleansStateSerializer>(sp))));
        var account = ActorId.Create<IAccountActor>(7_340_001);
        await silo.Client.RunAct<IAccountActor>(account, (a, ctx) => a.DepositChecking(ctx, 25m));
        var balance = await silo.Client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx));

        // Gone idle: its state waits in the silo's memory for the next activation.
        var management = silo.Grains.GetGrain<IManagementGrain>(0);
        await Poll.Until(
            async () =>
            {
                await management.ForceActivationCollection(TimeSpan.Zero);
                return !silo.Active.Contains(account);
            },
            "the account is collected");

        // A deployment that cannot read the state: the activation fails after taking it.
        serializer.Refuse = true;
        var failed = await Assert.ThrowsAnyAsync<Exception>(() => silo.Client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx)).WaitAsync(TimeSpan.FromSeconds(30)));
        Assert.Contains(RefusingSerializer.Refusal, failed.ToString());

        // Fixed: the next activation starts from the state the failed one took, not from the start's.
        serializer.Refuse = false;
        Assert.Equal(balance, await silo.Client.RunAct<IAccountActor, decimal>(account, (a, ctx) => a.Balance(ctx)));
        Assert.Equal((2 * Account.InitialBalance) + 25m, balance);
    }

    // The silo's state serializer, refusing to read any state while asked to.
    private sealed class RefusingSerializer
    {
        public const string Refusal = "this deployment cannot read the state";

        public volatile bool Refuse;

        public IStateSerializer Over(IStateSerializer inner) => new Refusing(this, inner);

        private sealed class Refusing(RefusingSerializer switched, IStateSerializer inner) : IStateSerializer
        {
            public byte[] Serialize<T>(T state) => inner.Serialize(state);

            public T Deserialize<T>(ReadOnlySpan<byte> data) =>
                switched.Refuse ? throw new InvalidOperationException(Refusal) : inner.Deserialize<T>(data);

            public T Copy<T>(T state) => inner.Copy(state);
        }
    }
}
