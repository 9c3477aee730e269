using Snapper;

namespace ListAppend;

/// <summary>The list-append workload's actor.</summary>
[Orleans.Concurrency.Reentrant]
public sealed class ListActor : TransactionalActor<TidList>, IListActor
{
    /// <inheritdoc />
    public async Task<AppendResult> Append(TxnContext ctx)
    {
        var list = await GetState(ctx, AccessMode.ReadWrite);
        var seen = new AppendResult(Id, list.Count, list.Last);
        list.Add(ctx.Tid);
        return seen;
    }

    /// <inheritdoc />
    public async Task<AppendResult[]> AppendEverywhere(TxnContext ctx, ActorId[] others)
    {
        var mine = await Append(ctx);
        var theirs = await Task.WhenAll(others.Select(o => CallActor<IListActor, AppendResult>(ctx, o, a => a.Append(ctx))));
        return [mine, .. theirs];
    }

    /// <inheritdoc />
    public async Task<AppendResult[]> AppendEverywhereThenRollBack(TxnContext ctx, ActorId[] others)
    {
        await AppendEverywhere(ctx, others);
        throw new TransactionAbortedException(AbortReason.User, $"transaction {ctx.Tid} appended everywhere and rolls back");
    }

    /// <inheritdoc />
    public async Task<List<long>> Read(TxnContext ctx) => (await GetState(ctx, AccessMode.Read)).ToList();
}
