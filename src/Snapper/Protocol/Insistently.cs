namespace Snapper.Protocol;

/// <summary>
/// Asks a protocol question whose asking twice changes nothing (a query, or a report its receiver
/// takes once) again each time its answer is late, and takes the first answer that comes.
/// </summary>
/// <remarks>
/// Why: an answer lost or held up on the way (a pause, a dropped message) otherwise costs the
/// response timeout (30 s by default), and what waits on these answers (a batch's decision, an
/// abort's rollback, the report of a failed PACT) holds every later batch on its actors with it.
/// Asked again after <c>firstRepeat</c> (<see cref="FirstRepeat"/> unless said), then after twice as
/// long each time (at most <see cref="LongestRepeat"/>), until an answer comes, a question fails
/// (its response timeout, or an error: that failure is the answer, as it was before), or
/// <c>askFor</c> (<see cref="AskFor"/> unless said) has passed: the questions out are then still
/// waited for. Bounded, since each question waits at its receiver: a receiver that is slow for a
/// reason of its own (a silo failing over) must not collect a question a second. Not for long polls
/// (a wait whose answer comes when something else happens): those would pile up the same way.
/// </remarks>
internal static class Insistently
{
    /// <summary>How long the first question waits before it is asked again, unless said.</summary>
    public static readonly TimeSpan FirstRepeat = TimeSpan.FromMilliseconds(50);

    /// <summary>The longest wait between two questions.</summary>
    public static readonly TimeSpan LongestRepeat = TimeSpan.FromSeconds(1);

    /// <summary>How long questions are asked again, unless said: five more at most.</summary>
    public static readonly TimeSpan AskFor = TimeSpan.FromSeconds(2);

    /// <summary>Asks <paramref name="question"/> until it is answered (see the remarks).</summary>
    public static async Task<T> Ask<T>(Func<Task<T>> question, TimeProvider clock, TimeSpan? firstRepeat = null, TimeSpan? askFor = null)
    {
        var first = question();
        if (first.IsCompleted)
        {
            return await first;
        }

        List<Task<T>> waiting = [first];
        var repeat = firstRepeat ?? FirstRepeat;
        var stopAsking = clock.GetUtcNow() + (askFor ?? AskFor);
        while (true)
        {
            using var stopWaiting = new CancellationTokenSource();
            var asking = clock.GetUtcNow() + repeat <= stopAsking;
            var wait = asking ? Task.Delay(repeat, clock, stopWaiting.Token) : null;
            var done = await Task.WhenAny(wait is null ? waiting : [.. waiting, wait]);
            if (done == wait)
            {
                waiting.Add(question());
                repeat = repeat * 2 < LongestRepeat ? repeat * 2 : LongestRepeat;
                continue;
            }

            await stopWaiting.CancelAsync();
            var answered = (Task<T>)done;
            waiting.Remove(answered);
            Observe(waiting);
            return await answered; // its answer, or its failure
        }
    }

    /// <summary><see cref="Ask{T}"/> for a question without an answer beyond its completion.</summary>
    public static Task Ask(Func<Task> question, TimeProvider clock, TimeSpan? firstRepeat = null, TimeSpan? askFor = null) =>
        Ask(
            async () =>
            {
                await question();
                return true;
            },
            clock,
            firstRepeat,
            askFor);

    // The questions still out once one was answered or failed: their failures (a late response
    // timeout) are of no interest, but must not go unobserved.
    private static void Observe<T>(List<Task<T>> left)
    {
        foreach (var question in left)
        {
            _ = question.ContinueWith(static t => _ = t.Exception, CancellationToken.None, TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
        }
    }
}
