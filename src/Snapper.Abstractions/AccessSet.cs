using System.Collections.Immutable;

namespace Snapper;

/// <summary>
/// A PACT's declaration (Snapper §3.1, actorAccessInfo): the actors it calls and how many times
/// each is called. Immutable; build with <c>AccessSet.Of(a, 1).And(b, 2)</c>.
/// </summary>
[GenerateSerializer, Immutable]
public sealed class AccessSet
{
    private AccessSet(ImmutableDictionary<ActorId, int> accesses) => Accesses = accesses;

    /// <summary>Actor → declared number of calls (always at least 1).</summary>
    [Id(0)]
    public ImmutableDictionary<ActorId, int> Accesses { get; }

    /// <summary>A set declaring <paramref name="calls"/> calls on <paramref name="actor"/>.</summary>
    public static AccessSet Of(ActorId actor, int calls = 1) => new AccessSet(ImmutableDictionary<ActorId, int>.Empty).And(actor, calls);

    /// <summary>This set plus <paramref name="calls"/> more calls on <paramref name="actor"/>.</summary>
    public AccessSet And(ActorId actor, int calls = 1)
    {
        if (actor.IsDefault)
        {
            throw new ArgumentException("An access set cannot name default(ActorId).", nameof(actor));
        }

        if (calls < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(calls), calls, $"Actor {actor} must be declared with at least one call.");
        }

        return new AccessSet(Accesses.SetItem(actor, Accesses.GetValueOrDefault(actor) + calls));
    }

    /// <summary>The declared number of calls on <paramref name="actor"/>, 0 if it is not declared.</summary>
    public int CallsOn(ActorId actor) => Accesses.GetValueOrDefault(actor);

    /// <inheritdoc />
    public override string ToString() => string.Join(", ", Accesses.Select(kv => $"{kv.Key}×{kv.Value}"));
}
