namespace Snapper;

/// <summary>
/// The identity of an actor: its interface type and a key. Two actor types with the same key are
/// different actors, as with an Orleans <c>GrainId</c> (type + key).
/// </summary>
[GenerateSerializer, Immutable]
public readonly record struct ActorId
{
    private ActorId(string type, string key)
    {
        Type = type;
        Key = key;
    }

    /// <summary>The full name of the actor interface, e.g. <c>SmallBank.IAccountActor</c>.</summary>
    [Id(0)]
    public string Type { get; }

    /// <summary>The actor's key within its type.</summary>
    [Id(1)]
    public string Key { get; }

    /// <summary>The id of the actor of interface <typeparamref name="TActor"/> with this key.</summary>
    public static ActorId Create<TActor>(string key) where TActor : IActor => Create(typeof(TActor), key);

    /// <summary>The id of the actor of interface <typeparamref name="TActor"/> with this key.</summary>
    public static ActorId Create<TActor>(long key) where TActor : IActor => Create(typeof(TActor), key.ToString(System.Globalization.CultureInfo.InvariantCulture));

    /// <summary>The id of the actor of the given interface with this key.</summary>
    public static ActorId Create(Type actorInterface, string key)
    {
        ArgumentNullException.ThrowIfNull(actorInterface);
        ArgumentException.ThrowIfNullOrEmpty(key);
        if (!actorInterface.IsInterface || !typeof(IActor).IsAssignableFrom(actorInterface))
        {
            throw new ArgumentException($"Actor ids are made from actor interfaces; {actorInterface.FullName} is not an interface deriving from {nameof(IActor)}.", nameof(actorInterface));
        }

        ActorTypes.Register(actorInterface);
        return new ActorId(actorInterface.FullName!, key);
    }

    /// <summary>Rebuilds an id from its parts as stored in a log record.</summary>
    internal static ActorId FromParts(string type, string key) => new(type, key);

    /// <summary>True for <c>default(ActorId)</c>, which names no actor.</summary>
    public bool IsDefault => Type is null;

    /// <inheritdoc />
    public override string ToString() => IsDefault ? "(none)" : $"{Type}/{Key}";
}
