using System.Collections.Immutable;
using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>
/// Forms a batch under the token (Snapper §4.2.1–4.2.2): the buffered PACTs get consecutive tids
/// after the token's last tid, the batch's bid is the first of them, and each actor gets a
/// sub-batch whose prevBid is the last batch the token sent it. The token is updated in place.
/// </summary>
internal static class BatchFormation
{
    public static FormedBatch Form(BatchToken token, ImmutableArray<PendingPact> pacts, string coordinator, DateTimeOffset deadline, DateTimeOffset now)
    {
        var bid = token.LastTid + 1;
        token.LastTid += pacts.Length;
        var contexts = ImmutableArray.CreateBuilder<TxnContext>(pacts.Length);
        var perActor = new Dictionary<ActorId, ImmutableArray<(long, int)>.Builder>();
        for (var i = 0; i < pacts.Length; i++)
        {
            var tid = bid + i;
            contexts.Add(new TxnContext(tid, TxnMode.Pact, pacts[i].Root, deadline, bid, pacts[i].Declared) { Coordinator = coordinator });
            var declared = pacts[i].Declared;
            for (var j = 0; j < declared.Count; j++)
            {
                var (actor, calls) = declared[j];
                if (!perActor.TryGetValue(actor, out var list))
                {
                    perActor[actor] = list = ImmutableArray.CreateBuilder<(long, int)>();
                }

                list.Add((tid, calls));
            }
        }

        var subBatches = ImmutableArray.CreateBuilder<(ActorId, SubBatch)>(perActor.Count);
        foreach (var (actor, list) in perActor)
        {
            // A predecessor that has resolved has completed on every actor (or was aborted there): no wait.
            var prev = token.PrevBid.TryGetValue(actor, out var p) && p > token.ResolvedThrough ? p : 0;
            token.PrevBid[actor] = bid;
            subBatches.Add((actor, new SubBatch(bid, prev, coordinator, list.ToImmutable())));
        }

        var batch = new EmittedBatch(bid, token.LastBid, token.LastBidCoordinator, [.. perActor.Keys], [.. contexts.Select(c => c.Tid)], pacts, now);
        batch.SubBatches = subBatches.MoveToImmutable();
        token.LastBid = bid;
        token.LastBidCoordinator = coordinator;
        return new FormedBatch(batch, pacts, contexts.MoveToImmutable(), batch.SubBatches);
    }
}
