using Snapper.Protocol;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Protocol;

/// <summary><see cref="Insistently"/>: a question whose answer is late is asked again; the first answer wins; failures end it.</summary>
public sealed class InsistentlyTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    [Fact]
    public async Task A_question_whose_answer_never_comes_is_asked_again_and_the_second_answer_is_taken()
    {
        var asked = 0;
        var never = new TaskCompletionSource<int>();
        var answer = await Insistently.Ask(() => ++asked == 1 ? never.Task : Task.FromResult(asked), TimeProvider.System).WaitAsync(Bound);
        Assert.Equal(2, answer);
        Assert.Equal(2, asked);
    }

    [Fact]
    public async Task An_answer_that_comes_at_once_is_asked_once()
    {
        var asked = 0;
        Assert.Equal(1, await Insistently.Ask(() => Task.FromResult(++asked), TimeProvider.System));
        Assert.Equal(1, asked);
    }

    [Fact]
    public async Task A_failed_question_stops_the_asking_and_is_the_answer_once_every_question_out_failed()
    {
        var asked = 0;
        var questions = new List<TaskCompletionSource<int>>();
        var asking = Insistently.Ask(
            () =>
            {
                var question = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
                lock (questions)
                {
                    questions.Add(question);
                }

                Interlocked.Increment(ref asked);
                return question.Task;
            },
            TimeProvider.System);

        await Poll.Until(() => Task.FromResult(Volatile.Read(ref asked) >= 2), "asked again");
        lock (questions)
        {
            questions[0].SetException(new TimeoutException("first"));
        }

        await Task.Delay(Insistently.FirstRepeat * 8);
        var askedWhenFailed = Volatile.Read(ref asked);
        Assert.False(asking.IsCompleted); // the second question is still out
        List<TaskCompletionSource<int>> later;
        lock (questions)
        {
            later = questions.Skip(1).ToList();
        }

        foreach (var question in later)
        {
            question.SetException(new TimeoutException("later"));
        }

        var failure = await Assert.ThrowsAsync<TimeoutException>(() => asking.WaitAsync(Bound));
        Assert.Equal("first", failure.Message);
        Assert.Equal(askedWhenFailed, Volatile.Read(ref asked)); // nothing asked after the first failure
    }
}
