namespace Snapper.Actors;

/// <summary>Actor interface → implementation, as registered with <c>SnapperBuilder.AddActor</c>.</summary>
internal sealed class ActorRegistry
{
    private readonly Dictionary<string, Type> implementations = new(StringComparer.Ordinal);

    public void Add(Type actorInterface, Type implementation)
    {
        var transactionalInterface = typeof(ITransactionalActor).IsAssignableFrom(actorInterface);
        var transactionalClass = IsTransactionalActor(implementation);
        if (transactionalInterface && !transactionalClass)
        {
            throw new ArgumentException($"{implementation.FullName} implements the transactional interface {actorInterface.FullName} but does not inherit TransactionalActor<TState>.");
        }

        if (!transactionalInterface && transactionalClass)
        {
            throw new ArgumentException($"{implementation.FullName} inherits TransactionalActor<TState>, so its interface {actorInterface.FullName} must derive from {nameof(ITransactionalActor)}.");
        }

        if (implementation.IsAbstract)
        {
            throw new ArgumentException($"Actor implementation {implementation.FullName} is abstract.");
        }

        if (!implementations.TryAdd(actorInterface.FullName!, implementation))
        {
            throw new ArgumentException($"Actor interface {actorInterface.FullName} is already registered, to {implementations[actorInterface.FullName!].FullName}.");
        }
    }

    public bool TryGet(string actorInterface, out Type implementation) =>
        implementations.TryGetValue(actorInterface, out implementation!);

    public IEnumerable<string> Registered => implementations.Keys;

    private static bool IsTransactionalActor(Type type)
    {
        for (var t = type; t is not null; t = t.BaseType)
        {
            if (t.IsGenericType && t.GetGenericTypeDefinition() == typeof(TransactionalActor<>))
            {
                return true;
            }
        }

        return false;
    }
}
