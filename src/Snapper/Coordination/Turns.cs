namespace Snapper.Coordination;

/// <summary>
/// A single-threaded, reentrant execution context: work runs on an exclusive scheduler, so turns
/// interleave at awaits but never run in parallel — the execution model of a reentrant Orleans
/// grain. Coordinators each own one (actors are grains, which Orleans schedules the same way). Code in a turn must not use
/// <c>ConfigureAwait(false)</c>, which would leave it.
/// </summary>
internal sealed class Turns
{
    private readonly TaskScheduler scheduler = new ConcurrentExclusiveSchedulerPair(TaskScheduler.Default, maxConcurrencyLevel: 1).ExclusiveScheduler;

    /// <summary>True when the caller is already inside one of these turns.</summary>
    public bool IsCurrent => TaskScheduler.Current == scheduler;

    /// <summary>Runs <paramref name="work"/> in a turn; inline when already in one.</summary>
    public Task<T> Run<T>(Func<Task<T>> work) =>
        IsCurrent ? work() : Task.Factory.StartNew(work, CancellationToken.None, TaskCreationOptions.DenyChildAttach, scheduler).Unwrap();

    /// <summary>Runs <paramref name="work"/> in a turn; inline when already in one.</summary>
    public Task Run(Func<Task> work) =>
        IsCurrent ? work() : Task.Factory.StartNew(work, CancellationToken.None, TaskCreationOptions.DenyChildAttach, scheduler).Unwrap();

    /// <summary>Runs <paramref name="work"/> in a turn; inline when already in one.</summary>
    public Task Run(Action work)
    {
        if (IsCurrent)
        {
            work();
            return Task.CompletedTask;
        }

        return Task.Factory.StartNew(work, CancellationToken.None, TaskCreationOptions.DenyChildAttach, scheduler);
    }
}
