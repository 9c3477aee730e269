using Snapper.LoadGen.Measurement;
using Snapper.LoadGen.Options;
using Snapper.LoadGen.Workloads;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.TpcC;

/// <summary>
/// The crossed mix TPC-C's hybrid mode issues through (each transaction type as a PACT or an ACT)
/// and how the load driver reports it. The driver test measures a window of a few seconds, so it
/// runs alone (<see cref="TimingSensitive"/>); one second was once all but empty (1 commit) after
/// the parallel tests, the test host paused.
/// </summary>
[Collection(TimingSensitive.Name)]
public sealed class TpcCHybridMixTests
{
    [Fact]
    public void A_crossed_mix_keeps_the_percentage_contract_and_draws_kinds_and_variants_by_their_shares()
    {
        IssueTransaction none = _ => Task.CompletedTask;
        Assert.Throws<ArgumentException>(() => TransactionMix.Crossed([("a", 100)], [new TransactionVariant("pact", 90), new TransactionVariant("act", 5)], (_, _) => none));
        Assert.Throws<ArgumentException>(() => TransactionMix.Crossed([("a", 60), ("b", 30)], [new TransactionVariant("pact", 100)], (_, _) => none));

        var mix = TransactionMix.Crossed([("a", 70), ("b", 30)], [new TransactionVariant("pact", 90), new TransactionVariant("act", 10)], (_, _) => none);
        Assert.Equal([70, 30], mix.Kinds.Select(k => k.Percent));
        var random = new Random(1);
        var counts = new int[2, 2];
        for (var i = 0; i < 20_000; i++)
        {
            counts[mix.Pick(random), mix.PickVariant(random)]++;
        }

        // Independent draws: each cell near kind share × variant share.
        Assert.InRange(counts[0, 0], 12_000, 13_200); // 63%
        Assert.InRange(counts[0, 1], 1_200, 1_600);   // 7%
        Assert.InRange(counts[1, 0], 5_000, 5_800);   // 27%
        Assert.InRange(counts[1, 1], 450, 750);       // 3%

        // A mix without variants draws none, so single-kind modes use their Random as before.
        var single = TransactionMix.Single("pact", none);
        var (r1, r2) = (new Random(3), new Random(3));
        Assert.Equal(0, single.PickVariant(r1));
        Assert.Equal(r2.Next(), r1.Next());
        Assert.Throws<ArgumentOutOfRangeException>(() => single.IssueOf(0, 1));
    }

    [Fact]
    public async Task The_driver_reports_each_kind_each_variant_and_each_kind_by_variant()
    {
        // Kind "b" as an ACT always aborts; everything else commits at once.
        var issued = new int[2, 2];
        var mix = TransactionMix.Crossed(
            [("a", 50), ("b", 50)],
            [new TransactionVariant("pact", 50), new TransactionVariant("act", 50)],
            (k, v) => _ =>
            {
                Interlocked.Increment(ref issued[k, v]);
                return k == 1 && v == 1 ? Task.FromException(new TransactionAbortedException(AbortReason.WaitDie, "lost")) : Task.Delay(1);
            });
        var options = new LoadGenOptions { WarmupSeconds = 0, DurationSeconds = 3, Clients = 1, Pipeline = 4, Actors = 100, TxnSize = 2 };

        var result = await new LoadDriver(options, ActorPicker.Create(options)).RunAsync("hybrid", mix, CancellationToken.None);

        var (kinds, variants) = (result.Kinds!, result.Variants!);
        var cells = kinds.ToDictionary(k => k.Key, k => k.Value.Variants!);
        var shown = string.Join("; ", cells.SelectMany(k => k.Value.Select(v => $"{k.Key}/{v.Key} {v.Value.Committed}+{v.Value.Aborted}")));
        Assert.True(result.Committed > 0 && result.Aborted > 0, $"measured {result.Committed} committed, {result.Aborted} aborted: {shown}");
        Assert.All(new[] { issued[0, 0], issued[0, 1], issued[1, 0], issued[1, 1] }, n => Assert.True(n > 0, shown));
        Assert.Equal(["a", "b"], cells.Keys.Order());
        Assert.Equal(["act", "pact"], variants.Keys.Order());
        Assert.All(cells.Values, byVariant => Assert.Equal(["act", "pact"], byVariant.Keys.Order()));

        // Kinds, variants and cells each add up to the mode; only b as an ACT aborts.
        Assert.Equal(result.Committed, kinds.Values.Sum(k => k.Committed));
        Assert.Equal(result.Committed, variants.Values.Sum(v => v.Committed));
        Assert.Equal(result.Committed, cells.Values.Sum(byVariant => byVariant.Values.Sum(c => c.Committed)));
        Assert.Equal(kinds["a"].Committed, cells["a"]["pact"].Committed + cells["a"]["act"].Committed);
        Assert.Equal(variants["act"].Committed, cells["a"]["act"].Committed + cells["b"]["act"].Committed);
        Assert.Equal(result.Aborted, variants["act"].Aborted);
        Assert.Equal(result.Aborted, cells["b"]["act"].Aborted);
        Assert.Equal(0, cells["b"]["act"].Committed);
        Assert.Equal(0, kinds["a"].Aborted);
        Assert.Equal(result.Aborted, result.AbortReasons["WaitDie"]);
    }
}
