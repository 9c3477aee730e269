using TpcC.Schema;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>Finds the customer a <see cref="CustomerSelector"/> names in a partition (TPC-C §2.5.2.2, §2.6.2.2).</summary>
public static class CustomerSelection
{
    /// <summary>
    /// By id: that customer. By last name: of the customers with that name sorted by C_FIRST, the
    /// one at position ⌈n/2⌉ (1-based). Null if there is none. All customers of one last name are
    /// in the same partition, so looking in one partition is looking in the whole district.
    /// </summary>
    public static Customer? Find(CustomerPartition partition, CustomerSelector selector)
    {
        ArgumentNullException.ThrowIfNull(partition);
        ArgumentNullException.ThrowIfNull(selector);
        if (selector.Id is { } id)
        {
            return partition.Customers.GetValueOrDefault(id);
        }

        var named = partition.Customers.Values
            .Where(c => string.Equals(c.Last, selector.LastName, StringComparison.Ordinal))
            .OrderBy(c => c.First, StringComparer.Ordinal)
            .ThenBy(c => c.Id)
            .ToList();
        return named.Count == 0 ? null : named[(named.Count - 1) / 2];
    }
}
