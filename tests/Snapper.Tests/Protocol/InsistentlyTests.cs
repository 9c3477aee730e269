using Microsoft.Extensions.Time.Testing;
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

    // On a fake clock: a starved test host fired the first 50 ms repeat after 800 ms once (CI).
    [Fact]
    public async Task Asking_stops_after_the_time_given_and_the_questions_out_are_waited_for()
    {
        var asked = 0;
        var never = new TaskCompletionSource<int>();
        var clock = new CountingClock();
        var asking = Insistently.Ask(
            () =>
            {
                Interlocked.Increment(ref asked);
                return never.Task;
            },
            clock,
            askFor: TimeSpan.FromMilliseconds(200));

        // Asked at 0, 50 and 150 ms; the next would be at 350, past the 200 given.
        Assert.Equal((1, 1), (Volatile.Read(ref asked), clock.Timers));
        clock.Advance(TimeSpan.FromMilliseconds(50));
        await Poll.Until(() => clock.Timers == 2, "the second question waits for its repeat");
        Assert.Equal(2, Volatile.Read(ref asked));
        clock.Advance(TimeSpan.FromMilliseconds(100));
        await Poll.Until(() => Volatile.Read(ref asked) == 3, "asked a third time");
        clock.Advance(TimeSpan.FromSeconds(5));
        await Task.Delay(100);
        Assert.Equal((3, 2), (Volatile.Read(ref asked), clock.Timers));
        Assert.False(asking.IsCompleted);
        never.SetResult(9);
        Assert.Equal(9, await asking.WaitAsync(Bound));
    }

    /// <summary>A fake clock that counts the timers made on it (each wait for a repeat is one).</summary>
    private sealed class CountingClock : FakeTimeProvider
    {
        private int timers;

        public int Timers => Volatile.Read(ref timers);

        public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
        {
            Interlocked.Increment(ref timers);
            return base.CreateTimer(callback, state, dueTime, period);
        }
    }
}
