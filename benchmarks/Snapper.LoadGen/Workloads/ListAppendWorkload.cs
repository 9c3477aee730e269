using System.Collections.Concurrent;
using ListAppend;
using Snapper.History;
using Snapper.LoadGen.Options;

namespace Snapper.LoadGen.Workloads;

/// <summary>
/// The list-append workload (after Jepsen's Elle) in act, pact and hybrid: each transaction starts
/// on its first picked actor and appends its tid to every picked actor's list, and records what it
/// saw in the history (its mode there is the kind it ran as: pact or act). Keys are deterministic:
/// each mode uses the <see cref="IListActor"/> keys of its <see cref="ModeNames.KeyBlock"/>, so a
/// later run with the same --actors finds the same lists; hybrid's PACTs and ACTs share theirs.
/// Nested (<c>nested</c>): each transaction runs a call tree instead (<see cref="CallTrees"/>),
/// appending once on every actor the tree reaches, however often it reaches it.
/// </summary>
public sealed class ListAppendWorkload : IWorkloadActors
{
    private readonly ISnapperClient client;
    private readonly KeyBlockIds<IListActor> lists;
    private readonly int pactPercent;
    private readonly int userAbortPercent;
    private readonly ActOptions act;
    private readonly ActOptions actElr;
    private readonly Action<HistoryEntry> record;
    private readonly bool nested;
    private readonly bool announce;

    // Transactions whose tid is known and whose outcome is not recorded yet: at cut-off they are
    // recorded as unknown. Whoever flips Done first records the transaction, exactly once.
    private readonly ConcurrentDictionary<long, Pending> pending = new();

    /// <summary>The workload over <paramref name="actors"/> list actors per mode.</summary>
    /// <param name="client">Issues the transactions.</param>
    /// <param name="actors">Actors per mode (<c>--actors</c>).</param>
    /// <param name="pactPercent">Hybrid: the percentage of transactions issued as PACTs.</param>
    /// <param name="record">Receives every finished transaction; must be thread-safe.</param>
    /// <param name="userAbortPercent">The percentage of transactions that append everywhere, then roll back (<c>--user-aborts</c>); nested: whose tree has a node that throws.</param>
    /// <param name="promote">An ACT aborted for a concurrency reason runs again as a PACT (<c>--promote</c>).</param>
    /// <param name="nested">Run call trees (<c>nested</c>), not one call per actor.</param>
    /// <param name="onRetry">Told of each ACT attempt that aborted and runs again (<see cref="ActOptions.OnRetry"/>).</param>
    /// <param name="announce">Each append registers an <see cref="Appended"/> after-commit action (<c>--after-commit</c>).</param>
    public ListAppendWorkload(ISnapperClient client, int actors, int pactPercent, Action<HistoryEntry> record, int userAbortPercent = 0, bool promote = true, bool nested = false, Action<TransactionAbortedException>? onRetry = null, bool announce = false)
    {
        this.announce = announce;
        this.nested = nested;
        act = ActOptions.Default with { Promote = promote, OnRetry = onRetry };
        actElr = ActOptions.EarlyRelease with { Promote = promote, OnRetry = onRetry };
        ArgumentOutOfRangeException.ThrowIfNegative(userAbortPercent);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(userAbortPercent, 100);
        this.userAbortPercent = userAbortPercent;
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(record);
        ArgumentOutOfRangeException.ThrowIfLessThan(actors, 1);
        this.client = client;
        this.record = record;
        lists = new KeyBlockIds<IListActor>(actors);
        this.pactPercent = pactPercent;
    }

    /// <summary>What <paramref name="mode"/> issues: list-append transactions of its kind(s).</summary>
    public TransactionMix For(string mode)
    {
        var ids = lists.For(mode);
        return mode switch
        {
            ModeNames.Act or ModeNames.ActElr => TransactionMix.Single(mode, keys => IssueAsync(mode, mode, ids, keys)),
            ModeNames.Pact => TransactionMix.Single(mode, keys => IssueAsync(mode, ModeNames.Pact, ids, keys)),
            ModeNames.Hybrid => TransactionMix.Hybrid(
                keys => IssueAsync(mode, ModeNames.Pact, ids, keys),
                keys => IssueAsync(mode, ModeNames.Act, ids, keys),
                pactPercent),
            _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, "listappend has no such mode."),
        };
    }

    /// <summary>
    /// Records every transaction of <paramref name="mode"/> whose outcome is still unknown (in flight
    /// when the run was cut off) as <see cref="TransactionStatus.Unknown"/>; returns how many.
    /// </summary>
    public int CutOff(string mode)
    {
        var count = 0;
        foreach (var (_, txn) in pending)
        {
            if (txn.Run == mode && txn.TryFinish())
            {
                record(new HistoryEntry(txn.Tid, txn.Kind, TransactionStatus.Unknown, null, txn.Actors, []));
                count++;
            }
        }

        return count;
    }

    /// <summary>
    /// Reads every list of <paramref name="mode"/> with a read-only transaction of that mode, once
    /// the load has drained. Keyed by the actor key as the history names it.
    /// </summary>
    public async Task<Dictionary<string, IReadOnlyList<long>>> ReadListsAsync(string mode, int parallelism, CancellationToken cancellationToken)
    {
        var ids = lists.For(mode);
        var read = new List<long>[ids.Length];
        await Parallel.ForAsync(0, ids.Length, new ParallelOptions { MaxDegreeOfParallelism = Math.Max(1, parallelism), CancellationToken = cancellationToken }, async (i, _) =>
            read[i] = await ReadAsync(mode, ids[i]));
        var result = new Dictionary<string, IReadOnlyList<long>>(ids.Length, StringComparer.Ordinal);
        for (var i = 0; i < ids.Length; i++)
        {
            result[ids[i].Key] = read[i];
        }

        return result;
    }

    /// <inheritdoc />
    public IReadOnlyList<IAddressable> Grains(string mode, IGrainFactory grains) => ActorGrains.Of(grains, lists.For(mode), typeof(IListActor));

    /// <inheritdoc />
    public Func<int, Task>? Read(string mode)
    {
        var ids = lists.For(mode);
        return i => ReadOnceAsync(mode, ids[i]);
    }

    private Task<List<long>> ReadOnceAsync(string mode, ActorId id) =>
        mode == ModeNames.Act
            ? client.RunAct<IListActor, List<long>>(id, (a, ctx) => a.Read(ctx), CancellationToken.None)
            : client.RunPact<IListActor, List<long>>(id, (a, ctx) => a.Read(ctx), AccessSet.Of(id), CancellationToken.None);

    // A read-only transaction. Nothing else runs once the load drained, so it should not abort; if
    // the runtime still aborts it, retry a few times, then let the abort surface.
    private async Task<List<long>> ReadAsync(string mode, ActorId id)
    {
        const int attempts = 5;
        for (var attempt = 1; ; attempt++)
        {
            try
            {
                return await ReadOnceAsync(mode, id);
            }
            catch (TransactionAbortedException) when (attempt < attempts)
            {
                await Task.Delay(10 * attempt);
            }
        }
    }

    private Task IssueAsync(string run, string mode, ActorId[] ids, int[] keys)
    {
        var first = ids[keys[0]];
        var rollBack = RollsBack(keys);
        if (nested)
        {
            var tree = CallTrees.Draw(ids, keys, throws: rollBack);
            var reached = tree.Nodes().Select(n => n.Actor.Key).Distinct(StringComparer.Ordinal).ToArray();
            return IssueAsync(run, mode, first, reached, (actor, ctx) => actor.Visit(ctx, tree), () => CallTrees.Declaration(tree));
        }

        var others = new ActorId[keys.Length - 1];
        var actors = new string[keys.Length];
        actors[0] = first.Key;
        for (var i = 1; i < keys.Length; i++)
        {
            others[i - 1] = ids[keys[i]];
            actors[i] = others[i - 1].Key;
        }

        return IssueAsync(run, mode, first, actors, (actor, ctx) => rollBack ? actor.AppendEverywhereThenRollBack(ctx, others, announce) : actor.AppendEverywhere(ctx, others, announce), () => Declare(first, others));
    }

    // Runs one transaction starting with `call` on `first`, reaching `actors`, and records it.
    private async Task IssueAsync(string run, string mode, ActorId first, string[] actors, Func<IListActor, TxnContext, Task<AppendResult[]>> call, Func<AccessSet> declare)
    {
        Pending? txn = null;
        async Task<(long Tid, AppendResult[] Results)> Body(IListActor actor, TxnContext ctx)
        {
            // The tid is known from here on: register it so a cut-off can still record it. A body
            // that runs again with a new tid is a new attempt (an ACT promoted to a PACT, or a PACT
            // run again with more declared): the client starts it only once the one before it has
            // aborted, so that one is recorded aborted. With the same tid it is the same attempt,
            // sent again because its first actor's activation went before it started there.
            var started = new Pending(ctx.Tid, run, mode, actors);
            if (pending.TryAdd(ctx.Tid, started) && Interlocked.Exchange(ref txn, started) is { } superseded && Finish(superseded.Tid))
            {
                record(new HistoryEntry(superseded.Tid, mode, TransactionStatus.Aborted, RunAgain, actors, []));
            }

            return (ctx.Tid, await call(actor, ctx));
        }

        try
        {
            var (tid, results) = mode != ModeNames.Pact
                ? await client.RunAct<IListActor, (long, AppendResult[])>(first, Body, mode == ModeNames.ActElr ? actElr : act, CancellationToken.None)
                : await client.RunPact<IListActor, (long, AppendResult[])>(first, Body, declare(), CancellationToken.None);
            if (Finish(tid, knownWithoutBody: Volatile.Read(ref txn) is null))
            {
                var appends = new AppendObservation[results.Length];
                for (var i = 0; i < results.Length; i++)
                {
                    appends[i] = new AppendObservation(results[i].Actor.Key, results[i].PrefixLen, results[i].PrevTid);
                }

                record(new HistoryEntry(tid, mode, TransactionStatus.Committed, null, actors, appends));
            }
        }
        catch (TransactionAbortedException aborted)
        {
            var tid = aborted.Tid != 0 ? aborted.Tid : Volatile.Read(ref txn)?.Tid ?? 0;
            if (tid != 0 && Finish(tid, knownWithoutBody: aborted.Tid != 0 && Volatile.Read(ref txn) is null))
            {
                record(new HistoryEntry(tid, mode, TransactionStatus.Aborted, aborted.Reason.ToString(), actors, []));
            }

            throw;
        }
        catch (TransactionInDoubtException inDoubt)
        {
            // The root could not learn the outcome: the checker takes it as either.
            if (Finish(inDoubt.Tid, knownWithoutBody: Volatile.Read(ref txn) is null))
            {
                record(new HistoryEntry(inDoubt.Tid, mode, TransactionStatus.Unknown, null, actors, []));
            }

            throw;
        }
        catch (Exception) when (Volatile.Read(ref txn) is { } known)
        {
            if (Finish(known.Tid))
            {
                record(new HistoryEntry(known.Tid, mode, TransactionStatus.Unknown, null, actors, []));
            }

            throw;
        }
    }

    // The abort reason recorded for an attempt the client ran again (promoted, or its declaration extended).
    private const string RunAgain = "RunAgain";

    // Whether a transaction rolls back is drawn from its keys, so the same seed rolls back the same ones.
    private bool RollsBack(int[] keys)
    {
        if (userAbortPercent == 0)
        {
            return false;
        }

        var draw = 17L;
        foreach (var key in keys)
        {
            draw = (draw * 31) + key;
        }

        return (int)((draw & long.MaxValue) % 100) < userAbortPercent;
    }

    // True if this caller records the outcome of tid (the cut-off did not get there first).
    private bool Finish(long tid, bool knownWithoutBody = false)
    {
        if (pending.TryRemove(tid, out var txn))
        {
            return txn.TryFinish();
        }

        // Aborted before the body ran: never registered, so nobody else records it.
        return knownWithoutBody;
    }

    private static AccessSet Declare(ActorId first, ActorId[] others)
    {
        var declared = AccessSet.Of(first);
        foreach (var other in others)
        {
            declared = declared.And(other);
        }

        return declared;
    }

    private sealed class Pending(long tid, string run, string kind, string[] actors)
    {
        private int done;

        public long Tid { get; } = tid;

        /// <summary>The mode of the run that issued it (what <see cref="CutOff"/> is asked for).</summary>
        public string Run { get; } = run;

        /// <summary>How it ran: pact or act (its mode in the history).</summary>
        public string Kind { get; } = kind;

        public string[] Actors { get; } = actors;

        public bool TryFinish() => Interlocked.Exchange(ref done, 1) == 0;
    }
}
