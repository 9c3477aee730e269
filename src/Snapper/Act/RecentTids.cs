namespace Snapper.Act;

/// <summary>The last few tids remembered, oldest forgotten first: enough to tell a late duplicate message from news.</summary>
internal sealed class RecentTids(int capacity)
{
    private readonly HashSet<long> set = new();
    private readonly Queue<long> order = new();

    public void Remember(long tid)
    {
        if (!set.Add(tid))
        {
            return;
        }

        order.Enqueue(tid);
        if (order.Count > capacity)
        {
            set.Remove(order.Dequeue());
        }
    }

    public bool Contains(long tid) => set.Contains(tid);

    /// <summary>The tids remembered, oldest first.</summary>
    public IEnumerable<long> Tids => order;
}
