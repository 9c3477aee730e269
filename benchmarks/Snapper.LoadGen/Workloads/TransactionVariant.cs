namespace Snapper.LoadGen.Workloads;

/// <summary>
/// One way every kind of a crossed <see cref="TransactionMix"/> can be issued (TPC-C hybrid:
/// <c>pact</c> or <c>act</c>), reported on its own row next to the kinds.
/// </summary>
/// <param name="Name">The variant, e.g. <c>pact</c>.</param>
/// <param name="Percent">Share of each kind's transactions, 0–100.</param>
public sealed record TransactionVariant(string Name, int Percent);
