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
    public void A_body_whose_calls_come_in_rounds_keeps_racing_as_an_ACT_and_samples_the_promoted_start()
    {
        var contention = new ActContention();
        Feed(contention, lostRace: true, times: 200);
        for (var i = 0; i < 200; i++)
        {
            contention.PromotedEnded(runs: 4); // each round of its calls cost a refused run
        }

        Assert.Equal(2, Enumerable.Range(0, ActContention.PromotedSampleEvery * 2).Count(_ => contention.PromoteAtOnce()));

        for (var i = 0; i < 200; i++)
        {
            contention.PromotedEnded(runs: 2); // its calls came in one round after all
        }

        Assert.Equal((ActContention.SampleEvery - 1) * 10, Enumerable.Range(0, ActContention.SampleEvery * 10).Count(_ => contention.PromoteAtOnce()));
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
