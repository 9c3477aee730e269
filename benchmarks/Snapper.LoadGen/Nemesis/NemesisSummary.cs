namespace Snapper.LoadGen.Nemesis;

/// <summary>What the nemesis did during one mode's measured window: a run's <c>nemesis</c> in the JSON.</summary>
public sealed record NemesisSummary
{
    /// <summary>The faults (<c>--nemesis</c>).</summary>
    public required IReadOnlyList<string> Faults { get; init; }

    /// <summary>Deactivation and migration requests a second asked for (<c>--nemesis-rate</c>).</summary>
    public required double Rate { get; init; }

    /// <summary>Actors the requests chose from: every actor of the mode's workload.</summary>
    public required int Actors { get; init; }

    /// <summary>Deactivations requested (<c>DeactivateOnIdle</c>).</summary>
    public long Deactivations { get; init; }

    /// <summary>Deactivation requests that failed or got no answer within <see cref="NemesisLoop.RequestPatience"/>.</summary>
    public long DeactivationsFailed { get; init; }

    /// <summary>Migrations requested (<c>MigrateOnIdle</c>).</summary>
    public long Migrations { get; init; }

    /// <summary>Migration requests that failed or got no answer within <see cref="NemesisLoop.RequestPatience"/>.</summary>
    public long MigrationsFailed { get; init; }

    /// <summary>Why the first failed deactivation or migration request failed, or null.</summary>
    public string? FirstRequestFailure { get; init; }

    /// <summary><c>delay</c>: grain calls delayed before they were sent.</summary>
    public long DelayedCalls { get; init; }

    /// <summary><c>timeout</c>: answers held past the response timeout.</summary>
    public long LateAnswers { get; init; }

    /// <summary>Calls that ended in Orleans' response timeout at their caller (the window and the drain after it).</summary>
    public long TimedOutCalls { get; init; }

    /// <summary><c>timeout</c>: Orleans' response timeout of the run, in seconds; null when not lowered.</summary>
    public double? ResponseTimeoutSeconds { get; init; }

    /// <summary>Once the nemesis stopped and the load drained, how fast every actor answered a read; null where the workload has no such read (tpcc).</summary>
    public LivenessSummary? Liveness { get; init; }
}
