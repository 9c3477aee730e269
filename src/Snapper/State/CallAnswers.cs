namespace Snapper.State;

/// <summary>The result of a call an engine ran as a plain <see cref="Task"/> (<see cref="ITransactionEngine{TState}.CallActor"/>).</summary>
internal static class CallAnswers
{
    /// <summary>The result of <paramref name="answer"/>, which has completed successfully; default when it has none.</summary>
    public static TResult ResultOf<TResult>(Task answer) => answer is Task<TResult> typed ? typed.Result : default!;
}
