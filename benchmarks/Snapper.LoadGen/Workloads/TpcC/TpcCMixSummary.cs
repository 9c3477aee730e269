using TpcC.Transactions;

namespace Snapper.LoadGen.Workloads.TpcC;

/// <summary>One mode's transactions by TPC-C type over a span: what the NewOrder throughput (tpmC) is read from.</summary>
/// <param name="Mode">The mode, e.g. <c>pact</c>.</param>
/// <param name="Seconds">Length of the span.</param>
/// <param name="Types">Per type, in <see cref="TpcCTransactionType"/> order.</param>
public sealed record TpcCMixSummary(string Mode, double Seconds, IReadOnlyList<TpcCTypeCounts> Types)
{
    /// <summary>Committed NewOrders per second.</summary>
    public double NewOrdersPerSecond => Types.Single(t => t.Type == TpcCTransactionType.NewOrder).PerSecond;

    /// <summary>Committed NewOrders per minute: TPC-C's tpmC (without its think and keying times).</summary>
    public double TpmC => NewOrdersPerSecond * 60;
}
