using Snapper.Pact;

namespace Snapper.Tests.Pact;

/// <summary><see cref="ServedCalls"/>: the answer a PACT's one call got here is given again to its caller only, until its batch resolves.</summary>
public sealed class ServedCallsTests
{
    private static readonly GrainId Caller = GrainId.Create("caller", "a");
    private static readonly GrainId Other = GrainId.Create("caller", "b");

    [Fact]
    public void The_answer_is_given_to_its_caller_until_its_batch_resolves()
    {
        var served = new ServedCalls();
        served.Answered(tid: 11, bid: 10, Caller, result: 5, failure: null);

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
    public void A_PACT_that_called_here_twice_gets_no_answer_again()
    {
        var served = new ServedCalls();
        served.Answered(11, 10, Caller, 1, null);
        served.Answered(11, 10, Caller, 2, null); // a call back into this actor, or parallel calls: which was asked is unknown
        Assert.False(served.AnswerOf(11, Caller).Answered);
    }

    [Fact]
    public void A_failure_is_given_again_as_the_answer_and_a_call_from_outside_an_actor_is_not_kept()
    {
        var served = new ServedCalls();
        served.Answered(11, 10, Caller, null, new InvalidOperationException("boom"));
        Assert.IsType<InvalidOperationException>(served.AnswerOf(11, Caller).Failure);

        served.Answered(12, 10, caller: null, 3, null);
        Assert.False(served.AnswerOf(12, default).Answered);
    }
}
