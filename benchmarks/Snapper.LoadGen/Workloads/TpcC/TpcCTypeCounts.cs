using TpcC.Transactions;

namespace Snapper.LoadGen.Workloads.TpcC;

/// <summary>How many transactions of one TPC-C type committed and aborted in a time span.</summary>
/// <param name="Type">The transaction type.</param>
/// <param name="Committed">Committed in the span.</param>
/// <param name="Aborted">Aborted in the span (any reason, NewOrder's 1% rollbacks included).</param>
/// <param name="PerSecond">Committed per second of the span.</param>
public sealed record TpcCTypeCounts(TpcCTransactionType Type, long Committed, long Aborted, double PerSecond);
