using System.Runtime.CompilerServices;
using Microsoft.Extensions.DependencyInjection;
using Snapper.Logging;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Act;

/// <summary>What 2PC writes to the log, and what happens when the log cannot be written.</summary>
public sealed class CommitLoggingTests
{
    private static ActorId Actor(string key) => ActorId.Create<ITestActor>(key);

    [Fact]
    public async Task Two_writers_commit_in_two_phases_with_CoordPrepare_Prepare_CoordCommit_and_Commit_records()
    {
        await using var silo = await TestSilo.StartAsync();
        var (a, b) = (Actor("a"), Actor("b"));
        await silo.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 2));
        await WaitForRecords(silo, 6);

        var records = await silo.LogRecords();
        var tid = records[0].Tid;
        Assert.All(records, r => Assert.Equal(tid, r.Tid));
        var coordPrepare = Assert.Single(records.OfType<CoordPrepareRecord>());
        Assert.Equal(new[] { a, b }.OrderBy(x => x.Key), coordPrepare.Participants.OrderBy(x => x.Key));
        var prepares = records.OfType<PrepareRecord>().ToDictionary(p => p.Actor);
        Assert.Equal(2, prepares.Count);
        Assert.All(prepares.Values, p => Assert.Equal(a, p.Coordinator));
        var serializer = silo.Services.GetRequiredService<Snapper.Serialization.IStateSerializer>();
        Assert.Equal(1, serializer.Deserialize<Counter>(prepares[a].State.Span).Value);
        Assert.Equal(2, serializer.Deserialize<Counter>(prepares[b].State.Span).Value);
        Assert.Single(records.OfType<CoordCommitRecord>());
        Assert.Equal(2, records.OfType<CommitRecord>().Count());
    }

    [Fact]
    public async Task A_single_writer_commits_in_one_phase_with_one_commit_record_holding_its_state()
    {
        await using var silo = await TestSilo.StartAsync();
        await silo.Client.RunAct<ITestActor>(Actor("solo"), (x, ctx) => x.Add(ctx, 5));

        var record = Assert.IsType<CommitRecord>(Assert.Single(await silo.LogRecords()));
        Assert.Equal(Actor("solo"), record.Actor);
        Assert.Equal(5, silo.Services.GetRequiredService<Snapper.Serialization.IStateSerializer>().Deserialize<Counter>(record.State.Span).Value);
    }

    [Fact]
    public async Task A_failing_log_aborts_with_reason_Failure_and_rolls_back_every_participant()
    {
        var storage = new SwitchableStorage();
        await using var silo = await TestSilo.StartAsync(services: s => s.AddSingleton<ILogStorage>(storage));
        var (a, b) = (Actor("fa"), Actor("fb"));
        await silo.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1));

        storage.Failing = true;
        var twoPhase = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1)));
        var onePhase = await Assert.ThrowsAsync<TransactionAbortedException>(() => silo.Client.RunAct<ITestActor>(a, (x, ctx) => x.Add(ctx, 1)));
        Assert.Equal(AbortReason.Failure, twoPhase.Reason);
        Assert.Equal(AbortReason.Failure, onePhase.Reason);
        Assert.Contains("storage is down", twoPhase.ToString());
        silo.AssertQuiescent<Counter>(a, b);

        // The silo keeps serving once storage is back, from the last committed state.
        storage.Failing = false;
        await silo.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1));
        Assert.Equal(2, await silo.Client.RunAct<ITestActor, int>(a, (x, ctx) => x.Read(ctx)));
        Assert.Equal(2, await silo.Client.RunAct<ITestActor, int>(b, (x, ctx) => x.Read(ctx)));
    }

    private static async Task WaitForRecords(TestSilo silo, int count)
    {
        // Participants' Commit records are written after the decision, off the commit path.
        var until = DateTime.UtcNow.AddSeconds(10);
        while ((await silo.LogRecords()).Count < count && DateTime.UtcNow < until)
        {
            await Task.Delay(5);
        }
    }

    private sealed class SwitchableStorage : ILogStorage
    {
        private readonly InMemoryLogStorage inner = new();

        public volatile bool Failing;

        public Task AppendAsync(string log, IReadOnlyList<ReadOnlyMemory<byte>> group, CancellationToken cancellationToken) =>
            Failing ? Task.FromException(new IOException("storage is down")) : inner.AppendAsync(log, group, cancellationToken);

        public async IAsyncEnumerable<ReadOnlyMemory<byte>> ReadAsync(string log, [EnumeratorCancellation] CancellationToken cancellationToken)
        {
            await foreach (var record in inner.ReadAsync(log, cancellationToken))
            {
                yield return record;
            }
        }

        public IAsyncEnumerable<string> ListAsync(CancellationToken cancellationToken) => inner.ListAsync(cancellationToken);

        public Task<long> SealAsync(string log, CancellationToken cancellationToken) => inner.SealAsync(log, cancellationToken);

        public Task TruncateAsync(string log, long mark, CancellationToken cancellationToken) => inner.TruncateAsync(log, mark, cancellationToken);

        public Task ClaimAsync(string log, string owner, CancellationToken cancellationToken) => inner.ClaimAsync(log, owner, cancellationToken);

        public Task FenceAsync(string log, string owner, CancellationToken cancellationToken) => inner.FenceAsync(log, owner, cancellationToken);
    }
}
