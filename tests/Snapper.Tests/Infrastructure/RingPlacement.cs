using StableHash = Snapper.Logging.StableHash;
using Snapper.Protocol;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// Where the ring and the loggers put things, computed the way the runtime does (a stable hash of
/// the id), so a test can pick actors whose PACTs go to a chosen coordinator and whose records go
/// to a chosen logger, and hold one logger's write without holding another's.
/// </summary>
internal static class RingPlacement
{
    /// <summary>The name TestingHost gives the first silo of a cluster.</summary>
    public const string FirstSilo = "Silo_0";

    /// <summary>The key of the first silo's coordinator <paramref name="index"/> (a test checks it against <see cref="TestSilo.CoordinatorKey"/>).</summary>
    public static string CoordinatorKey(int index) => Snapper.Protocol.CoordinatorKey.For(FirstSilo, index);

    /// <summary>The pseudo actor whose id picks the first silo's coordinator <paramref name="index"/>'s logger.</summary>
    public static ActorId Coordinator(int index) => ActorId.FromParts(Snapper.Logging.LogWriterPool.CoordinatorActorType, CoordinatorKey(index));

    /// <summary>The logger <paramref name="actor"/> writes through, of <paramref name="loggers"/>.</summary>
    public static ulong LogIndex(ActorId actor, int loggers) => StableHash.Of(actor) % (ulong)loggers;

    /// <summary>The coordinator a PACT rooted at <paramref name="root"/> goes to, of <paramref name="coordinators"/>.</summary>
    public static ulong CoordinatorOf(ActorId root, int coordinators) => StableHash.Of(root) % (ulong)coordinators;

    /// <summary>
    /// For a silo with two coordinators: a logger count under which the two coordinators log
    /// through different loggers, an actor <c>P</c> whose PACTs go to coordinator 0 and an actor
    /// <c>Q</c> whose PACTs go to coordinator 1 and which logs through neither coordinator 0's
    /// logger. Holding a write of coordinator 0 then holds nothing of a batch rooted at <c>Q</c>.
    /// </summary>
    public static (int Loggers, ActorId P, ActorId Q) TwoCoordinatorsOnTwoLoggers()
    {
        const int coordinators = 2;
        var keys = Enumerable.Range(0, 64).Select(i => ActorId.Create<ITestActor>($"p{i}")).ToArray();
        return Enumerable.Range(2, 30)
            .Where(n => LogIndex(Coordinator(0), n) != LogIndex(Coordinator(1), n))
            .SelectMany(n => keys.Where(k => CoordinatorOf(k, coordinators) == 1 && LogIndex(k, n) != LogIndex(Coordinator(0), n))
                .Select(k => (n, keys.First(r => CoordinatorOf(r, coordinators) == 0), k)))
            .First();
    }
}
