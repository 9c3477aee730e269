namespace Snapper.Act;

/// <summary>One actor's record of one ACT it takes part in.</summary>
internal sealed class ActRecord<TState>(TxnContext ctx)
    where TState : class
{
    public TxnContext Context { get; } = ctx;

    public ActRecordState State { get; set; } = ActRecordState.Active;

    /// <summary>The transaction's private copy of the state, made at its first write access.</summary>
    public TState? Working { get; set; }

    /// <summary>What the calls this actor made in the transaction reported back.</summary>
    public ExecutionInfo Learned { get; } = new();
}
