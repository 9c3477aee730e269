namespace Snapper.History;

/// <summary>The outcome of <see cref="ListAppendChecker.Check(IReadOnlyList{HistoryEntry}, IReadOnlyDictionary{string, IReadOnlyList{long}})"/>.</summary>
public sealed class CheckResult
{
    private readonly IReadOnlyDictionary<ViolationKind, long> _counts;

    /// <summary>Creates a result.</summary>
    /// <param name="violations">The reported violations (at most <paramref name="maxReportedPerKind"/> of each kind).</param>
    /// <param name="violationCounts">How many violations of each kind were found, reported or not.</param>
    /// <param name="maxReportedPerKind">The cap on reported violations per kind.</param>
    public CheckResult(IReadOnlyList<Violation> violations, IReadOnlyDictionary<ViolationKind, long> violationCounts, int maxReportedPerKind)
    {
        ArgumentNullException.ThrowIfNull(violations);
        ArgumentNullException.ThrowIfNull(violationCounts);
        Violations = violations;
        _counts = violationCounts;
        MaxReportedPerKind = maxReportedPerKind;
        TotalViolations = violationCounts.Values.Sum();
    }

    /// <summary><see langword="true"/> when no violation of any kind was found.</summary>
    public bool Ok => TotalViolations == 0;

    /// <summary>The reported violations, at most <see cref="MaxReportedPerKind"/> of each kind, in the order found.</summary>
    public IReadOnlyList<Violation> Violations { get; }

    /// <summary>How many violations of each kind were found (kinds with none are absent), including unreported ones.</summary>
    public IReadOnlyDictionary<ViolationKind, long> ViolationCounts => _counts;

    /// <summary>The total number of violations found, including unreported ones.</summary>
    public long TotalViolations { get; }

    /// <summary>The cap on reported violations per kind.</summary>
    public int MaxReportedPerKind { get; }

    /// <summary>Committed transactions in the history.</summary>
    public int CommittedCount { get; init; }

    /// <summary>Aborted transactions in the history.</summary>
    public int AbortedCount { get; init; }

    /// <summary>Unknown-outcome transactions in the history.</summary>
    public int UnknownCount { get; init; }

    /// <summary>Unknown-outcome transactions found in all of their actors' lists (they did commit).</summary>
    public int UnknownVisibleCount { get; init; }

    /// <summary>Unknown-outcome transactions found in none of their actors' lists (they did not commit).</summary>
    public int UnknownAbsentCount { get; init; }

    /// <summary>History entries (all statuses).</summary>
    public int TransactionCount => CommittedCount + AbortedCount + UnknownCount;

    /// <summary>Lists in the dump.</summary>
    public int ListCount { get; init; }

    /// <summary>Elements over all lists in the dump.</summary>
    public long ElementCount { get; init; }

    /// <summary>Edges in the precedence graph (consecutive distinct elements over all lists).</summary>
    public long EdgeCount { get; init; }

    /// <summary>How many violations of <paramref name="kind"/> were found, including unreported ones.</summary>
    public long CountOf(ViolationKind kind) => _counts.TryGetValue(kind, out var count) ? count : 0;

    /// <summary>The reported violations of <paramref name="kind"/>.</summary>
    public IEnumerable<Violation> Of(ViolationKind kind) => Violations.Where(v => v.Kind == kind);

    /// <inheritdoc/>
    public override string ToString() => CheckReport.Summary(this);
}
