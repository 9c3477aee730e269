using Snapper.Grains;
using Snapper.Tests.Hosting;

namespace Snapper.Tests.Act;

/// <summary>The actors a transaction's first call names in its arguments, which its promoted run declares.</summary>
public sealed class NamedActorsTests
{
    private static readonly ActorId Root = Actor("root");

    [Fact]
    public void An_actor_id_a_collection_of_them_and_their_properties_on_an_argument_are_declared_once_per_time_named()
    {
        var (b, c, d, e) = (Actor("b"), Actor("c"), Actor("d"), Actor("e"));
        object?[] arguments = [b, 5m, "text", null, new List<ActorId> { c, c }, new Payment(d, [e], 3)];

        var declared = NamedActors.Declare(AccessSet.Of(Root), arguments, _ => true);

        Assert.Equal("root×1, b×1, c×2, d×1, e×1", Keys(declared));
    }

    [Fact]
    public void Actors_declared_already_and_actors_deeper_than_one_property_are_not_added()
    {
        var (b, c) = (Actor("b"), Actor("c"));
        object?[] arguments = [Root, b, new Nested(new Payment(c, [], 1))];

        var declared = NamedActors.Declare(AccessSet.Of(Root).And(b), arguments, _ => true);

        Assert.Equal("root×1, b×1", Keys(declared));
    }

    [Fact]
    public void More_named_actors_than_a_call_could_mean_declare_none_of_them()
    {
        var many = Enumerable.Range(0, NamedActors.Most + 1).Select(i => Actor($"m{i}")).ToArray();
        Assert.Equal("root×1", Keys(NamedActors.Declare(AccessSet.Of(Root), [many], _ => true)));
        Assert.Equal(NamedActors.Most + 1, NamedActors.Declare(AccessSet.Of(Root), [many[..NamedActors.Most]], _ => true).Count);
    }

    [Fact]
    public void Actors_that_are_not_transactional_or_not_known_here_are_left_out()
    {
        var plain = ActorId.Create<IPlainTestActor>("plain");
        var unknown = ActorId.FromParts("Nowhere.IUnknownActor", "x");
        var b = Actor("b");

        var declared = NamedActors.Declare(
            AccessSet.Of(Root),
            [new[] { plain, unknown, b }],
            id => id == unknown ? throw new SnapperException("names no actor interface") : id != plain);

        Assert.Equal("root×1, b×1", Keys(declared));
    }

    private static string Keys(AccessSet set) => string.Join(", ", set.Accesses.OrderBy(a => a.Key == Root ? "" : a.Key.Key).Select(a => $"{a.Key.Key}×{a.Value}"));

    private static ActorId Actor(string key) => ActorId.Create<IPromotionTestActor>(key);

    private sealed record Payment(ActorId From, IReadOnlyList<ActorId> To, int Amount);

    private sealed record Nested(Payment Inner);
}
