namespace TpcC.Messages;

/// <summary>
/// Order actor → consistency checker: the aggregates conditions 2–4 of TPC-C §3.3.2 need from one
/// partition; the checker combines the partitions of a district.
/// </summary>
/// <param name="Orders">Number of ORDER rows.</param>
/// <param name="MaxOrderId">max(O_ID), null without orders.</param>
/// <param name="NewOrders">Number of NEW-ORDER rows.</param>
/// <param name="MinNewOrderId">min(NO_O_ID), null without new orders.</param>
/// <param name="MaxNewOrderId">max(NO_O_ID), null without new orders.</param>
/// <param name="OrderLineCountSum">sum(O_OL_CNT).</param>
/// <param name="OrderLines">Number of ORDER-LINE rows.</param>
[GenerateSerializer]
public sealed record OrderPartitionSummary(int Orders, int? MaxOrderId, int NewOrders, int? MinNewOrderId, int? MaxNewOrderId, long OrderLineCountSum, long OrderLines);
