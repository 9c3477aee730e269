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
    public async Task A_failed_question_is_the_answer_and_stops_the_asking()
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

        await Poll.Until(() => Volatile.Read(ref asked) >= 2, "asked again");
        lock (questions)
        {
            questions[0].SetException(new TimeoutException("first"));
        }

        var failure = await Assert.ThrowsAsync<TimeoutException>(() => asking.WaitAsync(Bound));
        Assert.Equal("first", failure.Message);
        var askedWhenFailed = Volatile.Read(ref asked);
        await Task.Delay(Insistently.FirstRepeat * 8);
        Assert.Equal(askedWhenFailed, Volatile.Read(ref asked)); // nothing asked after it
    }

    [Fact]
    public async Task Asking_stops_after_the_time_given_and_the_questions_out_are_waited_for()
    {
        var asked = 0;
        var never = new TaskCompletionSource<int>();
        var asking = Insistently.Ask(
            () =>
            {
                Interlocked.Increment(ref asked);
                return never.Task;
            },
            TimeProvider.System,
            askFor: TimeSpan.FromMilliseconds(200));

        await Task.Delay(TimeSpan.FromMilliseconds(800));
        var askedThen = Volatile.Read(ref asked);
        Assert.InRange(askedThen, 2, 4); // at 0, 50, 150 ms; none after 200 ms
        await Task.Delay(TimeSpan.FromMilliseconds(400));
        Assert.Equal(askedThen, Volatile.Read(ref asked));
        Assert.False(asking.IsCompleted);
        never.SetResult(9);
        Assert.Equal(9, await asking.WaitAsync(Bound));
    }
}
