namespace Snapper.Hosting;

/// <summary>
/// How a <c>RunAct</c> or <c>RunPact</c> body's ending reaches its caller. The body's call to its
/// first actor answers only once the transaction has committed or aborted, so what that call throws
/// is the transaction's: an abort, or, with the answer lost, doubt. What the body throws after the
/// call answered is its own (another transaction's abort, say): it comes wrapped in
/// <see cref="BodyFailedAfterCommitException"/>, so no caller takes it for an abort of a commit and
/// nothing runs the transaction again.
/// </summary>
internal static class TransactionBody
{
    /// <summary>Runs <paramref name="body"/> with the start context <paramref name="start"/>, its call's answer marked on it by the call filter.</summary>
    public static async Task<TResult> Run<TActor, TResult>(Func<TActor, TxnContext, Task<TResult>> body, TActor actor, TxnContext start)
    {
        try
        {
            return await body(actor, start);
        }
        catch (Exception own) when (start.Committed)
        {
            throw new BodyFailedAfterCommitException(start.Tid, own);
        }
    }

    /// <summary>
    /// The root's answer did not come (a response timeout, a silo gone): the transaction may have
    /// committed, so the caller is not told it aborted.
    /// </summary>
    public static bool IsLostAnswer(Exception e) => e is TimeoutException or OrleansException;

    public static TransactionInDoubtException InDoubt(long tid, Exception lost) =>
        new(tid, $"its root's answer was lost, so whether it committed is unknown: {lost.Message}", lost);
}
