namespace Snapper.LoadGen.Workloads;

/// <summary>
/// What one mode issues: a single kind, or (hybrid) several kinds drawn per transaction by their
/// percentages from the loop's own seeded random, so the draw is reproducible.
/// </summary>
public sealed class TransactionMix
{
    private readonly int[] thresholds;

    /// <summary>A mix of <paramref name="kinds"/>, whose percentages must add up to 100.</summary>
    public TransactionMix(IReadOnlyList<TransactionKind> kinds)
    {
        ArgumentNullException.ThrowIfNull(kinds);
        if (kinds.Count == 0 || kinds.Sum(k => k.Percent) != 100 || kinds.Any(k => k.Percent < 0))
        {
            throw new ArgumentException("A transaction mix needs kinds whose percentages are at least 0 and add up to 100.", nameof(kinds));
        }

        Kinds = kinds;
        thresholds = new int[kinds.Count];
        var sum = 0;
        for (var i = 0; i < kinds.Count; i++)
        {
            sum += kinds[i].Percent;
            thresholds[i] = sum;
        }
    }

    /// <summary>The kinds, in report order.</summary>
    public IReadOnlyList<TransactionKind> Kinds { get; }

    /// <summary>A mode of one kind, named as the mode.</summary>
    public static TransactionMix Single(string name, IssueTransaction issue) => new([new TransactionKind(name, issue, 100)]);

    /// <summary>Hybrid: PACTs with probability <paramref name="pactPercent"/>%, else ACTs, on the same actors.</summary>
    public static TransactionMix Hybrid(IssueTransaction pact, IssueTransaction act, int pactPercent) =>
        new([new TransactionKind(Options.ModeNames.Pact, pact, pactPercent), new TransactionKind(Options.ModeNames.Act, act, 100 - pactPercent)]);

    /// <summary>The index of the kind the next transaction is.</summary>
    public int Pick(Random random)
    {
        ArgumentNullException.ThrowIfNull(random);
        if (thresholds.Length == 1)
        {
            return 0;
        }

        var draw = random.Next(100);
        var i = 0;
        while (draw >= thresholds[i])
        {
            i++;
        }

        return i;
    }
}
