namespace Snapper.LoadGen.Workloads;

/// <summary>One kind of transaction a mode issues, reported on its own row when a mode mixes kinds.</summary>
/// <param name="Name">The kind, e.g. <c>pact</c> or <c>act</c>.</param>
/// <param name="Issue">Issues one transaction of this kind.</param>
/// <param name="Percent">Share of the mode's transactions, 0–100.</param>
public sealed record TransactionKind(string Name, IssueTransaction Issue, int Percent);
