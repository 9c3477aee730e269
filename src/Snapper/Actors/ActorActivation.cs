namespace Snapper.Actors;

/// <summary>One activated actor: its instance and its <see cref="Turns"/>.</summary>
internal sealed class ActorActivation
{
    private readonly Turns turns = new();

    public ActorActivation(ActorId id, object instance)
    {
        Id = id;
        Instance = instance;
    }

    public ActorId Id { get; }

    public object Instance { get; }

    /// <summary>Runs <paramref name="work"/> in a turn of this actor; inline when already in one.</summary>
    public Task<T> Run<T>(Func<Task<T>> work) => turns.Run(work);

    /// <summary>Runs <paramref name="work"/> in a turn of this actor; inline when already in one.</summary>
    public Task Run(Func<Task> work) => turns.Run(work);

    /// <summary>Runs <paramref name="work"/> in a turn of this actor; inline when already in one.</summary>
    public Task Run(Action work) => turns.Run(work);
}
