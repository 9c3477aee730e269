using Snapper;

namespace ListAppend;

/// <summary>
/// One node of a nested transaction's call tree (the <c>nested</c> workload): the actor it runs
/// on, what it does there, and the calls it makes from there. The same actor may appear more than
/// once in a tree, so calls come back into an actor the transaction already holds.
/// </summary>
/// <param name="Actor">The actor this node runs on.</param>
/// <param name="Children">The calls made from here, each to its node's actor.</param>
/// <param name="Parallel">True: the children are called all at once; false: one after another.</param>
/// <param name="Swallows">True: a child's failure is caught here and the node goes on (the transaction still learns of it).</param>
/// <param name="Throws">True: after its calls the node throws (<see cref="NestedCallFailedException"/>): a user abort.</param>
[GenerateSerializer, Immutable]
public sealed record CallTree(
    [property: Id(0)] ActorId Actor,
    [property: Id(1)] CallTree[] Children,
    [property: Id(2)] bool Parallel = false,
    [property: Id(3)] bool Swallows = false,
    [property: Id(4)] bool Throws = false)
{
    /// <summary>Every node of the tree, this one first (depth first).</summary>
    public IEnumerable<CallTree> Nodes()
    {
        yield return this;
        foreach (var child in Children)
        {
            foreach (var node in child.Nodes())
            {
                yield return node;
            }
        }
    }
}

/// <summary>What a <see cref="CallTree"/> node marked <see cref="CallTree.Throws"/> throws: user code failing mid-tree.</summary>
[GenerateSerializer]
public sealed class NestedCallFailedException : Exception
{
    /// <summary>The node on <paramref name="actor"/> failed on purpose.</summary>
    public NestedCallFailedException(ActorId actor)
        : base($"the call tree's node on {actor} throws on purpose")
    {
    }

    /// <summary>For serialization.</summary>
    public NestedCallFailedException()
    {
    }

    /// <summary>For serialization.</summary>
    public NestedCallFailedException(string message)
        : base(message)
    {
    }

    /// <summary>For serialization.</summary>
    public NestedCallFailedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
