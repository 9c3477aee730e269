using SmallBank;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Act;

/// <summary>The golden path and user aborts of ACTs, on the SmallBank sample.</summary>
public sealed class SmallBankTransactionTests
{
    private static ActorId Customer(long key) => ActorId.Create<IAccountActor>(key);

    private static Task<decimal> Balance(TestSilo silo, ActorId id) =>
        silo.Client.RunAct<IAccountActor, decimal>(id, (a, ctx) => a.Balance(ctx));

    [Fact]
    public async Task A_transfer_commits_and_moves_money()
    {
        await using var silo = await TestSilo.StartAsync();
        var (from, to) = (Customer(1), Customer(2));

        await silo.Client.RunAct<IAccountActor>(from, (a, ctx) => a.SendPayment(ctx, to, 250m));

        Assert.Equal(2 * Account.InitialBalance - 250m, await Balance(silo, from));
        Assert.Equal(2 * Account.InitialBalance + 250m, await Balance(silo, to));
        silo.AssertQuiescent<Account>(from, to);
    }

    [Fact]
    public async Task A_multi_transfer_debits_once_and_deposits_to_every_recipient()
    {
        await using var silo = await TestSilo.StartAsync();
        var from = Customer(10);
        var to = new[] { Customer(11), Customer(12), Customer(13) };

        var left = await silo.Client.RunAct<IAccountActor, decimal>(from, (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(5m, to)));

        Assert.Equal(Account.InitialBalance - 15m, left);
        foreach (var recipient in to)
        {
            Assert.Equal(2 * Account.InitialBalance + 5m, await Balance(silo, recipient));
        }
    }

    [Fact]
    public async Task Insufficient_funds_aborts_with_reason_User_and_changes_no_actor()
    {
        await using var silo = await TestSilo.StartAsync();
        var from = Customer(20);
        var to = new[] { Customer(21), Customer(22) };

        // Deposits reach the recipients first (parallel calls), then the debit fails: every write must roll back.
        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<IAccountActor, decimal>(from, (a, ctx) => a.MultiTransfer(ctx, new MultiTransferInput(Account.InitialBalance, to))));

        Assert.Equal(AbortReason.User, aborted.Reason);
        Assert.Contains("insufficient funds", aborted.Message);
        Assert.NotEqual(0, aborted.Tid);
        Assert.IsType<TransactionAbortedException>(aborted.InnerException);
        foreach (var id in to.Prepend(from))
        {
            Assert.Equal(2 * Account.InitialBalance, await Balance(silo, id));
        }

        silo.AssertQuiescent<Account>([from, .. to]);
    }

    [Fact]
    public async Task A_payment_whose_recipient_aborts_rolls_back_the_payer()
    {
        await using var silo = await TestSilo.StartAsync();
        var (from, to) = (Customer(30), Customer(31));

        // A negative deposit is refused by the recipient after the payer already debited itself.
        var aborted = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<IAccountActor>(from, (a, ctx) => a.SendPayment(ctx, to, -5m)));

        Assert.Equal(AbortReason.User, aborted.Reason);
        Assert.Equal(2 * Account.InitialBalance, await Balance(silo, from));
        Assert.Equal(2 * Account.InitialBalance, await Balance(silo, to));
    }

    [Fact]
    public async Task Amalgamate_and_savings_transactions_keep_the_books_straight()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Customer(40), Customer(41));

        await silo.Client.RunAct<IAccountActor>(a, (x, ctx) => x.TransactSaving(ctx, -100m));
        await silo.Client.RunAct<IAccountActor>(a, (x, ctx) => x.DepositChecking(ctx, 40m));
        await silo.Client.RunAct<IAccountActor>(a, (x, ctx) => x.Amalgamate(ctx, b));

        Assert.Equal(0m, await Balance(silo, a));
        Assert.Equal(4 * Account.InitialBalance - 60m, await Balance(silo, b));

        var refused = await Assert.ThrowsAsync<TransactionAbortedException>(() =>
            silo.Client.RunAct<IAccountActor>(a, (x, ctx) => x.TransactSaving(ctx, -1m)));
        Assert.Equal(AbortReason.User, refused.Reason);

        // Overdrawing by cheque costs a penalty of 1.
        await silo.Client.RunAct<IAccountActor>(a, (x, ctx) => x.WriteCheck(ctx, 10m));
        Assert.Equal(-11m, await Balance(silo, a));
    }
}
