namespace Snapper.LoadGen.Workloads;

/// <summary>
/// Issues one transaction on the given actor keys and completes when it committed. An abort is a
/// thrown exception: <see cref="TransactionAbortedException"/> carries its reason, anything else
/// counts as an "Error" abort.
/// </summary>
public delegate Task IssueTransaction(int[] keys);
