using System.Collections.Immutable;

namespace Snapper;

/// <summary>
/// A PACT's declaration (Snapper §3.1, actorAccessInfo): the actors it calls and how many times
/// each is called. Immutable; build with <c>AccessSet.Of(a, 1).And(b, 2)</c>.
/// </summary>
/// <remarks>
/// Kept as two small arrays in declaration order: a declaration names a handful of actors and
/// travels in the context of every call its PACT makes, so a scan beats hashing the actors' ids,
/// and two arrays serialize for less than a dictionary. <see cref="Accesses"/> is made on first use.
/// </remarks>
[GenerateSerializer, Immutable]
public sealed class AccessSet
{
    [Id(0)]
    private readonly ActorId[] actors;

    [Id(1)]
    private readonly int[] calls;

    [NonSerialized]
    private ImmutableDictionary<ActorId, int>? accesses; // made from the arrays on first use

    private AccessSet(ActorId[] actors, int[] calls) => (this.actors, this.calls) = (actors, calls);

    /// <summary>Actor → declared number of calls (always at least 1).</summary>
    public ImmutableDictionary<ActorId, int> Accesses => accesses ??= Enumerable.Range(0, actors.Length).ToImmutableDictionary(i => actors[i], i => calls[i]);

    /// <summary>How many actors are declared.</summary>
    internal int Count => actors.Length;

    /// <summary>The <paramref name="index"/>th actor declared, with its calls, in declaration order.</summary>
    internal (ActorId Actor, int Calls) this[int index] => (actors[index], calls[index]);

    /// <summary>A set declaring <paramref name="calls"/> calls on <paramref name="actor"/>.</summary>
    public static AccessSet Of(ActorId actor, int calls = 1) => new AccessSet([], []).And(actor, calls);

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

        var at = IndexOf(actor);
        if (at >= 0)
        {
            var summed = (int[])this.calls.Clone();
            summed[at] += calls;
            return new AccessSet(actors, summed);
        }

        return new AccessSet([.. actors, actor], [.. this.calls, calls]);
    }

    /// <summary>The number of calls declared on <paramref name="actor"/>; 0 if it is not declared.</summary>
    public int CallsOn(ActorId actor)
    {
        var at = IndexOf(actor);
        return at >= 0 ? calls[at] : 0;
    }

    /// <summary>
    /// The smallest set that declares at least as many calls on each actor as this set and
    /// <paramref name="other"/> do (this set's order first): a promoted PACT's next declaration.
    /// </summary>
    internal AccessSet Covering(AccessSet other)
    {
        var covering = this;
        for (var i = 0; i < other.actors.Length; i++)
        {
            var more = other.calls[i] - covering.CallsOn(other.actors[i]);
            if (more > 0)
            {
                covering = covering.And(other.actors[i], more);
            }
        }

        return covering;
    }

    /// <inheritdoc />
    public override string ToString() => string.Join(", ", actors.Select((actor, i) => $"{actor}×{calls[i]}"));

    internal int IndexOf(ActorId actor)
    {
        for (var i = 0; i < actors.Length; i++)
        {
            if (actors[i] == actor)
            {
                return i;
            }
        }

        return -1;
    }
}
