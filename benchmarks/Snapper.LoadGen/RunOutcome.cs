using Snapper.LoadGen.Reporting;

namespace Snapper.LoadGen;

/// <summary>What a run ended with: the exit code and, if the silo started, what was measured.</summary>
public sealed record RunOutcome(int ExitCode, LoadGenReport? Report);
