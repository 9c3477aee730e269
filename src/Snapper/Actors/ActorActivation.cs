namespace Snapper.Actors;

/// <summary>
/// One activated actor and its turns. Calls to the actor run on an exclusive scheduler: turns
/// interleave at awaits but never run in parallel, the execution model of a reentrant Orleans
/// grain. Code that runs in a turn must not use <c>ConfigureAwait(false)</c>, which would leave it.
/// </summary>
internal sealed class ActorActivation
{
    private readonly TaskScheduler turns = new ConcurrentExclusiveSchedulerPair(TaskScheduler.Default, maxConcurrencyLevel: 1).ExclusiveScheduler;

    public ActorActivation(ActorId id, object instance)
    {
        Id = id;
        Instance = instance;
    }

    public ActorId Id { get; }

    public object Instance { get; }

    /// <summary>Runs <paramref name="work"/> in a turn of this actor; inline when already in one.</summary>
    public Task<T> Run<T>(Func<Task<T>> work) =>
        TaskScheduler.Current == turns
            ? work()
            : Task.Factory.StartNew(work, CancellationToken.None, TaskCreationOptions.DenyChildAttach, turns).Unwrap();

    /// <summary>Runs <paramref name="work"/> in a turn of this actor; inline when already in one.</summary>
    public Task Run(Func<Task> work) =>
        TaskScheduler.Current == turns
            ? work()
            : Task.Factory.StartNew(work, CancellationToken.None, TaskCreationOptions.DenyChildAttach, turns).Unwrap();
}
