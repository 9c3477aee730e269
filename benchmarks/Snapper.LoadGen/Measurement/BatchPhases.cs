namespace Snapper.LoadGen.Measurement;

/// <summary>
/// Where a PACT run's batches spent their time inside the window, in milliseconds (Snapper's
/// <c>snapper.pact.batch_phase</c>): <see cref="Formed"/>, the longest a batch's PACTs waited for it
/// to form; <see cref="Completed"/>, from its emission to its last BatchComplete; <see cref="Committed"/>,
/// from there to its commit (the batches before it, the log).
/// </summary>
public sealed record BatchPhases(LatencySummary? Formed, LatencySummary? Completed, LatencySummary? Committed);
