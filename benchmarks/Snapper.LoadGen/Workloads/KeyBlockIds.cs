using Snapper.LoadGen.Options;

namespace Snapper.LoadGen.Workloads;

/// <summary>
/// The actor ids of each transactional mode's key block (<see cref="ModeNames.KeyBlock"/>), built
/// once per mode: <see cref="ActorId.Create{T}(long)"/> formats the key, which would otherwise run
/// for every transaction.
/// </summary>
/// <typeparam name="TActor">The actor interface the workload's keys name.</typeparam>
public sealed class KeyBlockIds<TActor>(int actors)
    where TActor : IActor
{
    private readonly Dictionary<int, ActorId[]> byBlock = new();

    /// <summary>The ids of keys block × actors .. block × actors + actors - 1 for <paramref name="mode"/>.</summary>
    public ActorId[] For(string mode)
    {
        var block = ModeNames.KeyBlock(mode);
        lock (byBlock)
        {
            if (!byBlock.TryGetValue(block, out var ids))
            {
                ids = new ActorId[actors];
                for (var key = 0; key < actors; key++)
                {
                    ids[key] = ActorId.Create<TActor>(((long)block * actors) + key);
                }

                byBlock[block] = ids;
            }

            return ids;
        }
    }
}
