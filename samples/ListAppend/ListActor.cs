using Snapper;

namespace ListAppend;

/// <summary>The list-append workload's actor.</summary>
[Orleans.Concurrency.Reentrant]
public sealed class ListActor : TransactionalActor<TidList>, IListActor
{
    /// <inheritdoc />
    public async Task<AppendResult> Append(TxnContext ctx, bool announce = false)
    {
        var list = await GetState(ctx, AccessMode.ReadWrite);
        var seen = new AppendResult(Id, list.Count, list.Last);
        list.Add(ctx.Tid);
        if (announce)
        {
            AfterCommit(ctx, new Appended(Id, ctx.Tid));
        }

        return seen;
    }

    /// <inheritdoc />
    public async Task<AppendResult[]> AppendEverywhere(TxnContext ctx, ActorId[] others, bool announce = false)
    {
        var mine = await Append(ctx, announce);
        var theirs = await Task.WhenAll(others.Select(o => CallActor<IListActor, AppendResult>(ctx, o, a => a.Append(ctx, announce))));
        return [mine, .. theirs];
    }

    /// <inheritdoc />
    public async Task<AppendResult[]> AppendEverywhereThenRollBack(TxnContext ctx, ActorId[] others, bool announce = false)
    {
        await AppendEverywhere(ctx, others, announce);
        throw new TransactionAbortedException(AbortReason.User, $"transaction {ctx.Tid} appended everywhere and rolls back");
    }

    /// <inheritdoc />
    public async Task<AppendResult[]> Visit(TxnContext ctx, CallTree node)
    {
        ArgumentNullException.ThrowIfNull(node);
        var list = await GetState(ctx, AccessMode.ReadWrite);
        var results = new List<AppendResult>();

        // Once per actor and transaction: the check and the append run in one turn, so two visits
        // of one transaction interleaving here (parallel calls back into this actor) append once.
        if (list.Last != ctx.Tid)
        {
            results.Add(new AppendResult(Id, list.Count, list.Last));
            list.Add(ctx.Tid);
        }

        if (node.Parallel)
        {
            var calls = node.Children.Select(child => Call(ctx, child, node.Swallows)).ToArray();
            foreach (var answer in await Task.WhenAll(calls))
            {
                results.AddRange(answer);
            }
        }
        else
        {
            foreach (var child in node.Children)
            {
                results.AddRange(await Call(ctx, child, node.Swallows));
            }
        }

        return node.Throws ? throw new NestedCallFailedException(Id) : [.. results];
    }

    // A child's failure fails this node too, unless it swallows it (Snapper aborts the transaction either way).
    private async Task<AppendResult[]> Call(TxnContext ctx, CallTree child, bool swallow)
    {
        try
        {
            return await CallActor<IListActor, AppendResult[]>(ctx, child.Actor, a => a.Visit(ctx, child));
        }
        catch (Exception) when (swallow)
        {
            return [];
        }
    }

    /// <inheritdoc />
    public async Task<List<long>> Read(TxnContext ctx) => (await GetState(ctx, AccessMode.Read)).ToList();
}
