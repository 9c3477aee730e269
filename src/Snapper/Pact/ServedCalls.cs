using Snapper.Protocol;

namespace Snapper.Pact;

/// <summary>
/// The answers an actor gave to the nested calls of PACTs whose batches have not resolved here,
/// kept so that a caller whose answer was lost or held up on the way can ask for it again
/// (<see cref="ISnapperParticipant.PactCallAnswer"/>) instead of waiting for the response timeout
/// while every batch behind its PACT waits too.
/// </summary>
/// <remarks>
/// One per PACT engine of an activation, touched only in the actor's turns. A PACT whose calls
/// reached this actor more than once (a call tree that comes back here, parallel calls) keeps no
/// answer: which of them a caller asks about could not be told apart, so it waits as before.
/// Dropped when the batch resolves here; a new activation has none (the caller waits as before).
/// </remarks>
internal sealed class ServedCalls
{
    private readonly Dictionary<long, Served> served = new();
    private readonly List<long> resolved = new();

    /// <summary>PACT <paramref name="tid"/> of batch <paramref name="bid"/>: its call from <paramref name="caller"/> was answered with <paramref name="result"/> or <paramref name="failure"/>.</summary>
    public void Answered(long tid, long bid, GrainId? caller, object? result, Exception? failure)
    {
        if (caller is not { } from)
        {
            return; // not from an actor: nobody will ask
        }

        served[tid] = served.TryGetValue(tid, out _)
            ? new Served(bid, default, null, null, Ambiguous: true)
            : new Served(bid, from, result, failure, Ambiguous: false);
    }

    /// <summary>The answer PACT <paramref name="tid"/>'s call from <paramref name="caller"/> got here, if there is exactly one.</summary>
    public LateCallAnswer AnswerOf(long tid, GrainId caller) =>
        served.TryGetValue(tid, out var call) && !call.Ambiguous && call.Caller == caller
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

    private readonly record struct Served(long Bid, GrainId Caller, object? Result, Exception? Failure, bool Ambiguous);
}
