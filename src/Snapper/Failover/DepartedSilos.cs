using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Diagnostics;
using Snapper.Logging;
using Snapper.Recovery;
using Snapper.Configuration;
using Snapper.Protocol;

namespace Snapper.Failover;

/// <summary>
/// What this silo knows of silos that left the cluster (docs/architecture.md, "A silo dies"):
/// which they are, and, once the ring has sealed their failover, what the logs say about the work
/// they left undecided. Every silo has one; it watches Orleans' membership and tells the ring
/// (<see cref="IRingMembership.Departed"/>) when a silo it saw active is declared dead.
/// </summary>
/// <remarks>
/// <para>Three questions are answered from the logs, which every silo of a cluster that fails over
/// shares (Azure Tables, or one folder):</para>
/// <list type="bullet">
/// <item>How a batch emitted by a dead coordinator ended (<see cref="BatchOutcome"/>): committed if
/// its BatchCommit counts in the logs as they stand once the ring is halted and every surviving log is
/// flushed (<see cref="FailoverSeal"/>), else aborted through the seal, like an abort cascade.</item>
/// <item>Whether an ACT a root does not know committed (<see cref="ActCommittedNow"/>): its root was
/// on a dead silo (or ended it long ago), so its CoordCommit is in the logs or nowhere. Read afresh
/// for every question, since a surviving root may have made one durable just before it forgot the ACT.</item>
/// <item>The committed state of an actor that lived on a dead silo, and the writes it had prepared
/// there whose ACTs are still undecided (<see cref="FailoverSeal.ForActivation"/>).</item>
/// </list>
/// </remarks>
internal sealed class DepartedSilos(
    IClusterMembershipService cluster,
    ILocalSiloDetails local,
    IGrainFactory grains,
    ILogStorage storage,
    IOptions<SnapperOptions> options,
    ILogger<DepartedSilos> diagnostics) : ILifecycleParticipant<ISiloLifecycle>, IDepartures
{
    private readonly Lock sync = new();

    // By silo name: completed once the ring has sealed that silo's failover here.
    private readonly Dictionary<string, TaskCompletionSource<FailoverSeal>> departed = new(StringComparer.Ordinal);
    private readonly SemaphoreSlim reading = new(1, 1);
    private FailoverSeal? latest;
    private LogsRead? evaluated; // read for a failover not sealed yet
    private Task<LogsRead>? queuedRead;
    private readonly HashSet<SiloAddress> active = new();
    private readonly HashSet<SiloAddress> stopping = new(); // left Active, not dead yet
    private readonly Dictionary<string, SiloAddress> leavingIncarnation = new(StringComparer.Ordinal); // by name: the one whose failover departed waits for
    private readonly HashSet<string> sealedIncarnations = new(StringComparer.Ordinal); // silos (by address) failed over here
    private MembershipVersion observed = MembershipVersion.MinValue;
    private CancellationTokenSource? watching;

    /// <summary>
    /// True once any silo has departed since this one started. Reads Orleans' membership first: an
    /// actor of the dead silo may be activated here as soon as Orleans' directory has dropped it,
    /// which the membership update that tells this watcher may not have reached yet.
    /// </summary>
    public bool Any
    {
        get
        {
            Observe(cluster.CurrentSnapshot);
            lock (sync)
            {
                return departed.Count > 0;
            }
        }
    }

    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(DepartedSilos), ServiceLifecycleStage.Active, StartWatching, StopWatching);

    /// <summary>
    /// True if silo <paramref name="silo"/> died (or stopped) while this silo was running, and has
    /// not come back under its name: its coordinators answer no more, the failover does.
    /// </summary>
    public bool IsDeparted(string silo)
    {
        lock (sync)
        {
            if (!departed.ContainsKey(silo))
            {
                return false;
            }
        }

        return !cluster.CurrentSnapshot.Members.Values.Any(m => m.Name == silo && m.Status is SiloStatus.Active or SiloStatus.ShuttingDown or SiloStatus.Stopping or SiloStatus.Joining);
    }

    /// <summary>
    /// True if batch <paramref name="bid"/> of silo <paramref name="silo"/>'s coordinators was handed
    /// out before a failover of that silo sealed: the seal decides it, even once a silo of that name
    /// is back (its coordinators start afresh and know nothing of their predecessors' batches).
    /// </summary>
    public bool SealedBefore(string silo, long bid)
    {
        lock (sync)
        {
            return departed.TryGetValue(silo, out var failover) && failover.Task.IsCompletedSuccessfully && bid <= failover.Task.Result.Through;
        }
    }

    /// <summary>True if a silo named <paramref name="silo"/> is an active member of the cluster.</summary>
    public bool IsActive(string silo) => cluster.CurrentSnapshot.Members.Values.Any(m => m.Status == SiloStatus.Active && m.Name == silo);

    /// <inheritdoc />
    public bool IsRunning(string silo) => cluster.CurrentSnapshot.Members.Values.Any(m => IDepartures.Answers(m.Status) && m.Name == silo);

    /// <summary>
    /// Completes once every departure this silo has seen is sealed here, but those of the silo
    /// incarnations in <paramref name="answered"/>, with the newest seal (null: none).
    /// </summary>
    public async Task<FailoverSeal?> WhenSettled(IReadOnlyCollection<SiloAddress> answered)
    {
        Task<FailoverSeal>[] waits;
        lock (sync)
        {
            waits = [.. departed.Where(d => !(leavingIncarnation.TryGetValue(d.Key, out var leaving) && answered.Contains(leaving))).Select(d => d.Value.Task)];
        }

        await Task.WhenAll(waits);
        lock (sync)
        {
            return latest;
        }
    }

    /// <summary>
    /// The ring → this silo (<see cref="ISiloFailover.Evaluate"/>): the ring is halted and the logs
    /// flushed; fence the departed incarnation out of its logs, then read them. Returns the highest
    /// tid in them.
    /// </summary>
    /// <remarks>
    /// Declared dead is not dead: a silo paused longer than the death vote wakes up and, until it
    /// learns its fate, goes on appending and answering. Fenced first, nothing it appends after the
    /// read below counts (and it is told so, and stops), so the seal decides from all it will ever
    /// have logged. Every survivor fences before its own read; fencing twice is fencing once.
    /// </remarks>
    public async Task<long> Evaluate(string silo, string incarnation)
    {
        Mark(silo);
        await Fence(silo, incarnation);
        var read = await ReadNow();
        lock (sync)
        {
            evaluated = read;
        }

        return read.Evaluation.MaxTid;
    }

    private async Task Fence(string silo, string incarnation)
    {
        var logs = new List<string>();
        await foreach (var log in storage.ListAsync(CancellationToken.None))
        {
            if (LogWriterPool.IsLogOf(log, silo))
            {
                logs.Add(log);
            }
        }

        await Task.WhenAll(logs.Select(async log =>
        {
            await storage.FenceAsync(log, incarnation, CancellationToken.None);
            LogMessages.LogFencedForFailover(diagnostics, silo, incarnation, log);
        }));
    }

    /// <summary>Raised after each seal made here, for those that answer from it (BatchCommit as this silo learns it).</summary>
    public event Action<FailoverSeal>? Sealed;

    /// <summary>The ring → this silo (<see cref="ISiloFailover.Seal"/>): batches of <paramref name="silo"/>'s coordinators (as <paramref name="incarnation"/>) not committed abort through <paramref name="through"/>.</summary>
    public void Seal(string silo, string incarnation, long through)
    {
        TaskCompletionSource<FailoverSeal> waiting;
        FailoverSeal seal;
        lock (sync)
        {
            sealedIncarnations.Add(incarnation);
            var read = evaluated ?? throw new InvalidOperationException($"The failover of silo {silo} was sealed before the logs were read.");
            seal = latest = new FailoverSeal(silo, through, read.Evaluation, read.Prepared);
            waiting = departed[silo];
        }

        waiting.TrySetResult(seal);
        Sealed?.Invoke(seal);
        LogMessages.FailoverSealed(diagnostics, silo, through, seal.Evaluation.CommittedBatches.Count);
    }

    /// <summary>How batch <paramref name="bid"/> of a departed silo's coordinator <paramref name="coordinator"/> ended (answered once the failover is sealed).</summary>
    public async Task<BatchOutcome> BatchOutcome(string coordinator, long bid)
    {
        TaskCompletionSource<FailoverSeal> waiting;
        lock (sync)
        {
            waiting = departed[CoordinatorKey.SiloOf(coordinator)];
        }

        var seal = await waiting.Task;
        return seal.Evaluation.CommittedBatches.Contains(bid) ? Protocol.BatchOutcome.Commit : Protocol.BatchOutcome.Abort(seal.Through);
    }

    /// <summary>Whether batch <paramref name="bid"/>'s BatchCommit counts in the logs as they are now (read after this call began).</summary>
    public async Task<bool> BatchCommittedNow(long bid) => (await ReadNow()).Evaluation.CommittedBatches.Contains(bid);

    /// <summary>Whether ACT <paramref name="tid"/>'s commit counts in the logs as they are now (read after this call began).</summary>
    public async Task<bool> ActCommittedNow(long tid) => (await ReadNow()).Evaluation.CommittedActs.Contains(tid);

    private void Mark(string silo)
    {
        lock (sync)
        {
            if (departed.TryGetValue(silo, out var known) && !known.Task.IsCompleted)
            {
                return;
            }

            // A silo of that name may have come back and died again: a new failover.
            departed[silo] = new TaskCompletionSource<FailoverSeal>(TaskCreationOptions.RunContinuationsAsynchronously);
        }
    }

    // One read of every log at a time; a question joins the read that starts next, never one
    // already under way (it might miss a record made durable just before the question).
    private Task<LogsRead> ReadNow()
    {
        TaskCompletionSource<LogsRead>? starting = null;
        Task<LogsRead> read;
        lock (sync)
        {
            if (queuedRead is null)
            {
                starting = new TaskCompletionSource<LogsRead>(TaskCreationOptions.RunContinuationsAsynchronously);
                queuedRead = starting.Task;
            }

            read = queuedRead;
        }

        if (starting is not null)
        {
            _ = Read(starting);
        }

        return read;
    }

    private async Task Read(TaskCompletionSource<LogsRead> result)
    {
        await reading.WaitAsync();
        try
        {
            lock (sync)
            {
                queuedRead = null; // it starts now: a later question waits for the next one
            }

            var logs = await LogRecovery.ReadAllAsync(storage, CancellationToken.None);
            var records = logs.SelectMany(l => l.Records).ToList();
            result.TrySetResult(new LogsRead(LogEvaluation.Of(records), records.OfType<PrepareRecord>().ToLookup(p => p.Actor)));
        }
        catch (Exception e)
        {
            result.TrySetException(e);
        }
        finally
        {
            reading.Release();
        }
    }

    private Task StartWatching(CancellationToken cancellationToken)
    {
        if (options.Value.Logging != LoggingMode.None)
        {
            watching = new CancellationTokenSource();
            _ = Watch(watching.Token);
        }

        return Task.CompletedTask;
    }

    private Task StopWatching(CancellationToken cancellationToken)
    {
        watching?.Cancel();
        return Task.CompletedTask;
    }

    private async Task Watch(CancellationToken stop)
    {
        try
        {
            await foreach (var snapshot in cluster.MembershipUpdates.WithCancellation(stop))
            {
                Observe(snapshot);
            }
        }
        catch (OperationCanceledException)
        {
        }
    }

    // A silo seen active and now dead has departed: mark it, and tell the ring.
    private void Observe(ClusterMembershipSnapshot snapshot)
    {
        if (watching is not { } running)
        {
            return; // not watching (no logs, or not started yet): nothing to fail over from
        }

        var leaving = new List<string>();
        var died = new List<(string Name, SiloAddress Address)>();
        lock (sync)
        {
            if (snapshot.Version <= observed)
            {
                return;
            }

            observed = snapshot.Version;
            foreach (var member in snapshot.Members.Values)
            {
                if (member.SiloAddress.Equals(local.SiloAddress))
                {
                    continue;
                }

                if (member.Status == SiloStatus.Active)
                {
                    active.Add(member.SiloAddress);
                }
                else if (member.Status is SiloStatus.ShuttingDown or SiloStatus.Stopping or SiloStatus.Dead
                    && active.Remove(member.SiloAddress) && !sealedIncarnations.Contains(member.SiloAddress.ToParsableString()))
                {
                    // Orleans may activate the silo's actors elsewhere from now on, before it is
                    // dead: they wait for the failover, which starts once it is. Not if it was failed
                    // over already (a silo back under its name had the ring do that at its join).
                    leaving.Add(member.Name);
                    stopping.Add(member.SiloAddress);
                    leavingIncarnation[member.Name] = member.SiloAddress;
                }

                if (member.Status == SiloStatus.Dead && stopping.Remove(member.SiloAddress))
                {
                    died.Add((member.Name, member.SiloAddress));
                }
            }
        }

        foreach (var silo in leaving)
        {
            Mark(silo);
        }

        foreach (var (silo, address) in died)
        {
            LogMessages.SiloDeparted(diagnostics, silo);
            _ = Task.Run(() => Report(silo, address, running.Token)); // out of any grain's turn: it retries for as long as it takes
        }
    }

    // Tells the ring, again until it answers: every survivor does, and the ring fails the silo over once.
    private async Task Report(string silo, SiloAddress address, CancellationToken stop)
    {
        while (!stop.IsCancellationRequested)
        {
            try
            {
                await grains.GetGrain<IRingMembership>(0).Departed(silo, address.ToParsableString());
                return;
            }
            catch (Exception e) when (!stop.IsCancellationRequested)
            {
                LogMessages.FailoverFailed(diagnostics, e, silo);
                await Task.Delay(TimeSpan.FromSeconds(1), CancellationToken.None);
            }
            catch
            {
                return; // this silo is stopping
            }
        }
    }

    private sealed record LogsRead(LogEvaluation Evaluation, ILookup<ActorId, PrepareRecord> Prepared);
}
