using ListAppend;

namespace Snapper.LoadGen.Workloads;

/// <summary>
/// Draws the call trees of the <c>nested</c> workload: up to <see cref="MaxLevels"/> levels and
/// <see cref="MaxFanOut"/> calls per node, each node's calls made one after another or all at
/// once, each node on one of the transaction's keys (so an actor may come back in its own tree, as
/// a call back into an actor already in the transaction), some nodes swallowing their calls'
/// failures, and, in the transactions drawn to fail, one node that throws. Drawn from the keys
/// alone, so the same keys give the same tree in every mode.
/// </summary>
public static class CallTrees
{
    /// <summary>Levels of a tree, its root's included.</summary>
    public const int MaxLevels = 3;

    /// <summary>Calls one node makes at most.</summary>
    public const int MaxFanOut = 3;

    /// <summary>The tree for <paramref name="keys"/> over <paramref name="ids"/>, rooted on the first key; <paramref name="throws"/>: one node throws.</summary>
    public static CallTree Draw(ActorId[] ids, int[] keys, bool throws)
    {
        ArgumentNullException.ThrowIfNull(ids);
        ArgumentNullException.ThrowIfNull(keys);
        var random = TransactionMix.KeyRandom(keys);
        var tree = Node(ids[keys[0]], 1);
        if (!throws)
        {
            return tree;
        }

        var nodes = tree.Nodes().ToList();
        var thrower = nodes[random.Next(nodes.Count)];
        return Marked(tree, thrower);

        CallTree Node(ActorId actor, int level)
        {
            // The root always calls someone; deeper nodes may be leaves; the last level always is.
            var fanOut = level == MaxLevels ? 0 : random.Next(level == 1 ? 1 : 0, MaxFanOut + 1);
            var children = new CallTree[fanOut];
            for (var i = 0; i < fanOut; i++)
            {
                children[i] = Node(ids[keys[random.Next(keys.Length)]], level + 1);
            }

            return new CallTree(actor, children, Parallel: fanOut > 1 && random.Next(2) == 0, Swallows: fanOut > 0 && random.Next(4) == 0);
        }
    }

    /// <summary>The declaration a PACT running <paramref name="tree"/> needs: one call per node on its actor.</summary>
    public static AccessSet Declaration(CallTree tree)
    {
        ArgumentNullException.ThrowIfNull(tree);
        AccessSet? declared = null;
        foreach (var node in tree.Nodes())
        {
            declared = declared is null ? AccessSet.Of(node.Actor) : declared.And(node.Actor);
        }

        return declared!;
    }

    // The same tree with `thrower` (found by reference) marked to throw.
    private static CallTree Marked(CallTree node, CallTree thrower) =>
        ReferenceEquals(node, thrower)
            ? node with { Throws = true }
            : node with { Children = [.. node.Children.Select(c => Marked(c, thrower))] };
}
