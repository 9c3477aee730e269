using Snapper.Grains;
using Snapper.Pact;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Pact;

/// <summary><see cref="ServedCalls"/>: the answer a PACT's only call here got is given again to its caller only, until its batch resolves.</summary>
public sealed class ServedCallsTests
{
    private static readonly GrainId Caller = GrainId.Create("caller", "a");
    private static readonly GrainId Other = GrainId.Create("caller", "b");

    [Fact]
    public void The_answer_is_given_to_its_caller_until_its_batch_resolves()
    {
        var served = new ServedCalls();
        served.Arrived(tid: 11, bid: 10);
        Assert.False(served.AnswerOf(11, Caller).Answered); // running: no answer yet
        served.Answered(11, Caller, result: 5, failure: null);

        var answer = served.AnswerOf(11, Caller);
        Assert.True(answer.Answered);
        Assert.Equal(5, answer.Result);
        Assert.False(served.AnswerOf(11, Other).Answered); // another actor's call is not this one
        Assert.False(served.AnswerOf(12, Caller).Answered); // nor another PACT's

        served.Forget(bid => bid < 10);
        Assert.True(served.AnswerOf(11, Caller).Answered);
        served.Forget(bid => bid <= 10);
        Assert.False(served.AnswerOf(11, Caller).Answered);
    }

    [Fact]
    public void A_second_call_of_the_PACT_still_running_here_is_not_given_the_first_one_s_answer()
    {
        var served = new ServedCalls();
        served.Arrived(11, 10);
        served.Answered(11, Caller, 1, null);
        served.Arrived(11, 10); // the same PACT calls here again (sequentially, in parallel, or back through another actor)
        Assert.False(served.AnswerOf(11, Caller).Answered);
        served.Answered(11, Caller, 2, null);
        Assert.False(served.AnswerOf(11, Caller).Answered); // and keeps no answer once two came
    }

    [Fact]
    public void A_failure_is_given_again_but_a_moving_activation_and_a_call_from_outside_an_actor_are_not_kept()
    {
        var served = new ServedCalls();
        served.Arrived(11, 10);
        served.Answered(11, Caller, null, new InvalidOperationException("boom"));
        Assert.IsType<InvalidOperationException>(served.AnswerOf(11, Caller).Failure);

        served.Arrived(12, 10);
        served.Answered(12, Caller, null, new ActorMovingException(ActorId.Create<ITestActor>("going")));
        Assert.False(served.AnswerOf(12, Caller).Answered); // no answer: the call goes to the next activation

        served.Arrived(13, 10);
        served.Answered(13, null, 3, null);
        Assert.False(served.AnswerOf(13, default).Answered);
    }
}
