using Snapper.Concurrency;

namespace Snapper.Tests.Regression;

/// <summary>
/// Defect 4: two concurrent accesses of one transaction to one actor (Read and ReadWrite) queued as
/// two waiters with one tid; once the younger holder left, the write was granted and the read then
/// waited behind the transaction's own write lock until its deadline. A transaction never waits
/// for itself.
/// </summary>
public sealed class LockRegressionTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(5);

    [Theory]
    [InlineData(1, 2)] // Read, then Write
    [InlineData(2, 1)]
    [InlineData(1, 1)]
    [InlineData(2, 2)]
    public async Task Two_concurrent_requests_of_one_waiting_transaction_are_granted_together(int firstMode, int secondMode)
    {
        var (first, second) = ((LockMode)firstMode, (LockMode)secondMode);
        var clock = TimeProvider.System;
        var deadline = clock.GetUtcNow() + Bound;
        var l = new WaitDieLock();
        await l.Acquire(10, LockMode.Write, deadline, clock); // a younger holder

        var a = l.Acquire(5, first, deadline, clock).AsTask();
        var b = l.Acquire(5, second, deadline, clock).AsTask();
        Assert.Equal(1, l.WaiterCount); // one tid, one place in the queue

        l.Release(10);
        await Task.WhenAll(a, b).WaitAsync(Bound / 2); // well before the deadline
        Assert.Equal((LockMode)Math.Max((int)first, (int)second), l.HeldBy(5));

        l.Release(5);
        Assert.True(l.IsFree);
        Assert.Equal(0, l.WaiterCount);
    }

    [Fact]
    public async Task A_holder_asking_again_is_granted_or_upgraded_at_once_and_one_release_frees_everything()
    {
        var clock = TimeProvider.System;
        var deadline = clock.GetUtcNow() + Bound;
        var l = new WaitDieLock();
        await l.Acquire(5, LockMode.Read, deadline, clock);
        Assert.True(l.Acquire(5, LockMode.Read, deadline, clock).IsCompletedSuccessfully);
        Assert.True(l.Acquire(5, LockMode.Write, deadline, clock).IsCompletedSuccessfully);
        Assert.True(l.Acquire(5, LockMode.Read, deadline, clock).IsCompletedSuccessfully);
        Assert.Equal(LockMode.Write, l.HeldBy(5));

        // An older transaction waiting twice (concurrent calls) leaves nothing behind when it ends.
        var older = new[] { l.Acquire(2, LockMode.Read, deadline, clock).AsTask(), l.Acquire(2, LockMode.Write, deadline, clock).AsTask() };
        l.Release(2);
        foreach (var request in older)
        {
            Assert.Equal(AbortReason.Failure, (await Assert.ThrowsAsync<TransactionAbortedException>(() => request)).Reason);
        }

        Assert.Equal(0, l.WaiterCount);
        l.Release(5);
        Assert.True(l.IsFree);
    }
}
