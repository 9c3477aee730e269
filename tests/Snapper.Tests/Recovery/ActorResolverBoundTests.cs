using SmallBank;
using Snapper.Grains;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Recovery;

/// <summary>
/// A silo kept a grain reference for every actor it ever called, for ever (issue 52: found weighing
/// a silo after idle collection, about 300 bytes an actor). The cache holds two generations.
/// </summary>
public sealed class ActorResolverBoundTests
{
    [Fact]
    public async Task The_references_a_silo_keeps_are_bounded_and_one_in_use_stays()
    {
        await using var silo = await TestSilo.StartAsync();
        var resolver = silo.Resolver;
        var hot = ActorId.Create<IAccountActor>(-1);
        var first = resolver.Get<IAccountActor>(hot);

        for (var n = 0; n < 3 * ActorResolver.Generation; n++)
        {
            resolver.Get<IAccountActor>(ActorId.Create<IAccountActor>(n));
            if (n % 1000 == 0)
            {
                Assert.Same(first, resolver.Get<IAccountActor>(hot)); // used again: moved to the newer generation
            }
        }

        Assert.InRange(resolver.Count, 1, 2 * ActorResolver.Generation);
        Assert.Same(first, resolver.Get<IAccountActor>(hot));
    }
}
