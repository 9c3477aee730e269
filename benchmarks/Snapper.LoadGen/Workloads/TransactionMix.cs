namespace Snapper.LoadGen.Workloads;

/// <summary>
/// What one mode issues: a single kind, or several kinds drawn per transaction by their
/// percentages from the loop's own seeded random, so the draw is reproducible. A mix can also be
/// crossed with variants (TPC-C hybrid: each transaction type issued as a PACT or as an ACT): the
/// kind is drawn first, then the variant, each by its own percentages.
/// </summary>
public sealed class TransactionMix
{
    private readonly int[] thresholds;
    private readonly int[] variantThresholds;
    private readonly IssueTransaction[,]? crossed;

    /// <summary>A mix of <paramref name="kinds"/>, whose percentages must add up to 100.</summary>
    public TransactionMix(IReadOnlyList<TransactionKind> kinds)
    {
        ArgumentNullException.ThrowIfNull(kinds);
        thresholds = Thresholds(kinds.Select(k => k.Percent).ToList(), nameof(kinds), "kinds");
        Kinds = kinds;
        Variants = [];
        variantThresholds = [100];
    }

    private TransactionMix(IReadOnlyList<TransactionKind> kinds, IReadOnlyList<TransactionVariant> variants, IssueTransaction[,] crossed)
        : this(kinds)
    {
        variantThresholds = Thresholds(variants.Select(v => v.Percent).ToList(), nameof(variants), "variants");
        Variants = variants;
        this.crossed = crossed;
    }

    /// <summary>The kinds, in report order.</summary>
    public IReadOnlyList<TransactionKind> Kinds { get; }

    /// <summary>The variants every kind is issued in (crossed mixes), in report order; empty otherwise.</summary>
    public IReadOnlyList<TransactionVariant> Variants { get; }

    /// <summary>A mode of one kind, named as the mode.</summary>
    public static TransactionMix Single(string name, IssueTransaction issue) => new([new TransactionKind(name, issue, 100)]);

    /// <summary>Hybrid: PACTs with probability <paramref name="pactPercent"/>%, else ACTs, on the same actors.</summary>
    public static TransactionMix Hybrid(IssueTransaction pact, IssueTransaction act, int pactPercent) =>
        new([new TransactionKind(Options.ModeNames.Pact, pact, pactPercent), new TransactionKind(Options.ModeNames.Act, act, 100 - pactPercent)]);

    /// <summary>
    /// Every kind in every variant: a transaction is of kind k with k's percentage and, independently,
    /// of variant v with v's percentage, and is issued by <paramref name="issue"/>(k, v). Both lists'
    /// percentages must add up to 100. Each kind's <see cref="TransactionKind.Issue"/> issues it in
    /// a variant drawn from the transaction's keys (for callers that do not draw the variant).
    /// </summary>
    public static TransactionMix Crossed(
        IReadOnlyList<(string Name, int Percent)> kinds, IReadOnlyList<TransactionVariant> variants, Func<int, int, IssueTransaction> issue)
    {
        ArgumentNullException.ThrowIfNull(kinds);
        ArgumentNullException.ThrowIfNull(variants);
        ArgumentNullException.ThrowIfNull(issue);
        var cells = new IssueTransaction[kinds.Count, variants.Count];
        for (var k = 0; k < kinds.Count; k++)
        {
            for (var v = 0; v < variants.Count; v++)
            {
                cells[k, v] = issue(k, v);
            }
        }

        var variantThresholds = Thresholds(variants.Select(v => v.Percent).ToList(), nameof(variants), "variants");
        var byKind = kinds.Select((kind, k) => new TransactionKind(kind.Name, keys => cells[k, Draw(variantThresholds, KeyRandom(keys))](keys), kind.Percent)).ToList();
        return new TransactionMix(byKind, variants, cells);
    }

    /// <summary>The index of the kind the next transaction is.</summary>
    public int Pick(Random random)
    {
        ArgumentNullException.ThrowIfNull(random);
        return Draw(thresholds, random);
    }

    /// <summary>The index of the variant the next transaction is issued in; 0 without drawing when the mix has no variants.</summary>
    public int PickVariant(Random random)
    {
        ArgumentNullException.ThrowIfNull(random);
        return Draw(variantThresholds, random);
    }

    /// <summary>Issues kind <paramref name="kind"/> in variant <paramref name="variant"/> (0 when the mix has no variants).</summary>
    public IssueTransaction IssueOf(int kind, int variant) =>
        crossed is null
            ? variant == 0 ? Kinds[kind].Issue : throw new ArgumentOutOfRangeException(nameof(variant), variant, "The mix has no variants.")
            : crossed[kind, variant];

    private static int Draw(int[] thresholds, Random random)
    {
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

    /// <summary>
    /// A Random fixed by the keys (FNV-1a over them): for a kind's own Issue in a crossed mix, and
    /// for anything else a transaction draws from its keys (a nested call tree), so a seed gives the
    /// same run.
    /// </summary>
    public static Random KeyRandom(int[] keys)
    {
        ArgumentNullException.ThrowIfNull(keys);
        var hash = unchecked((int)2166136261);
        foreach (var key in keys)
        {
            hash = unchecked((hash ^ key) * 16777619);
        }

        return new Random(hash);
    }

    private static int[] Thresholds(IReadOnlyList<int> percents, string parameter, string what)
    {
        if (percents.Count == 0 || percents.Sum() != 100 || percents.Any(p => p < 0))
        {
            throw new ArgumentException($"A transaction mix needs {what} whose percentages are at least 0 and add up to 100.", parameter);
        }

        var result = new int[percents.Count];
        var sum = 0;
        for (var i = 0; i < percents.Count; i++)
        {
            sum += percents[i];
            result[i] = sum;
        }

        return result;
    }
}
