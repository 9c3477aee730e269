using Snapper.Grains;
using Snapper.Protocol;

namespace Snapper.Pact;

/// <summary>
/// The answers an actor gave to the nested calls of PACTs whose batches have not resolved here,
/// kept so that a caller whose answer was lost or held up on the way can ask for it again
/// (<see cref="ISnapperParticipant.PactCallAnswer"/>) instead of waiting for the response timeout
/// while every batch behind its PACT waits too.
/// </summary>
/// <remarks>
/// One per PACT engine of an activation, touched only in the actor's turns. Calls are counted as
/// they arrive, and an answer is kept only while its call is the PACT's only one here: a PACT whose
/// calls reached this actor more than once (a call tree that comes back here, parallel calls)
/// keeps none, since which of them a caller asks about could not be told apart (and a call still
/// running must not be given an earlier one's answer). The caller asks only about the one call a
/// PACT declared on this actor (<see cref="State.LateAnswers"/>).
/// Dropped when the batch resolves here; a new activation has none (the caller waits as before).
/// </remarks>
internal sealed class ServedCalls
{
    private readonly Dictionary<long, Served> served = new();
    private readonly List<long> resolved = new();

    /// <summary>A call of PACT <paramref name="tid"/> of batch <paramref name="bid"/> arrived here (before it runs).</summary>
    public void Arrived(long tid, long bid) =>
        served[tid] = served.TryGetValue(tid, out var earlier)
            ? earlier with { Arrivals = earlier.Arrivals + 1, Answered = false, Result = null, Failure = null }
            : new Served(bid, 1, default, false, null, null);

    /// <summary>
    /// The call of PACT <paramref name="tid"/> from <paramref name="caller"/> was answered with
    /// <paramref name="result"/> or <paramref name="failure"/>: kept if it is the PACT's only call
    /// here so far. Not an <see cref="ActorMovingException"/>: that is no answer (the caller sends
    /// the call again, to the next activation).
    /// </summary>
    public void Answered(long tid, GrainId? caller, object? result, Exception? failure)
    {
        if (caller is { } from && failure is not ActorMovingException && served.TryGetValue(tid, out var call) && call.Arrivals == 1)
        {
            served[tid] = call with { Caller = from, Answered = true, Result = result, Failure = failure };
        }
    }

    /// <summary>True if a call of PACT <paramref name="tid"/> has arrived here (it may still wait for its turn).</summary>
    public bool Knows(long tid) => served.ContainsKey(tid);

    /// <summary>The answer PACT <paramref name="tid"/>'s call from <paramref name="caller"/> got here, if it is the only call of that PACT that came here.</summary>
    public LateCallAnswer AnswerOf(long tid, GrainId caller) =>
        served.TryGetValue(tid, out var call) && call is { Arrivals: 1, Answered: true } && call.Caller == caller
            ? new LateCallAnswer(true, call.Result, call.Failure)
            : LateCallAnswer.NotAnswered;

    /// <summary>The batches for which <paramref name="isResolved"/> holds have committed or aborted here: their answers go.</summary>
    public void Forget(Func<long, bool> isResolved)
    {
        if (served.Count == 0)
        {
            return;
        }

        foreach (var (tid, call) in served)
        {
            if (isResolved(call.Bid))
            {
                resolved.Add(tid);
            }
        }

        foreach (var tid in resolved)
        {
            served.Remove(tid);
        }

        resolved.Clear();
    }

    private readonly record struct Served(long Bid, int Arrivals, GrainId Caller, bool Answered, object? Result, Exception? Failure);
}
