using Snapper.Hosting;

namespace Snapper.Tests.Act;

/// <summary>The moving share of ACTs that lose their first race, and when ACTs start promoted.</summary>
public sealed class ActContentionTests
{
    [Fact]
    public void ACTs_race_until_most_lose_then_start_promoted_all_but_one_sampled_until_they_win_again()
    {
        var contention = new ActContention();
        Assert.False(contention.PromoteAtOnce());

        Feed(contention, lostRace: true, times: 200);
        Assert.Equal((ActContention.SampleEvery - 1) * 10, Enumerable.Range(0, ActContention.SampleEvery * 10).Count(_ => contention.PromoteAtOnce()));

        Feed(contention, lostRace: false, times: 200);
        Assert.False(contention.PromoteAtOnce());
        Assert.InRange(contention.LossRate, 0, 0.01);
    }

    [Fact]
    public void Where_most_first_runs_are_refused_promoted_starts_reconnoitre_but_one_in_SampleEvery_which_keeps_the_share_measured()
    {
        var contention = new ActContention();
        Feed(contention, lostRace: true, times: 200);
        Assert.False(contention.Reconnoitres()); // not measured yet: tried without

        for (var i = 0; i < 200; i++)
        {
            contention.FirstPromotedRunEnded(refused: true); // its calls come in rounds its call does not name
        }

        Assert.Equal((ActContention.SampleEvery - 1) * 10, Enumerable.Range(0, ActContention.SampleEvery * 10).Count(_ => contention.Reconnoitres()));

        for (var i = 0; i < 200; i++)
        {
            contention.FirstPromotedRunEnded(refused: i % 10 == 0); // its call named nearly all it called
        }

        Assert.False(contention.Reconnoitres());

        // A body that reads its tid before its call is never reconnoitred: a reconnaissance has none.
        for (var i = 0; i < 200; i++)
        {
            contention.FirstPromotedRunEnded(refused: true);
        }

        contention.ReadContextEarly();
        Assert.DoesNotContain(true, Enumerable.Range(0, ActContention.SampleEvery * 2).Select(_ => contention.Reconnoitres()));
    }

    [Fact]
    public void A_few_losses_among_wins_do_not_promote()
    {
        var contention = new ActContention();
        for (var i = 0; i < 400; i++)
        {
            contention.FirstAttemptEnded(lostRace: i % 3 == 0);
        }

        Assert.InRange(contention.LossRate, 0.2, 0.45);
        Assert.False(contention.PromoteAtOnce());
    }

    private static void Feed(ActContention contention, bool lostRace, int times)
    {
        for (var i = 0; i < times; i++)
        {
            contention.FirstAttemptEnded(lostRace);
        }
    }
}
