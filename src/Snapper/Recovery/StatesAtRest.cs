using System.Threading.Channels;
using Microsoft.Extensions.Logging;
using Orleans.Serialization;
using Snapper.AtRest;
using Snapper.Diagnostics;
using Snapper.Logging;

namespace Snapper.Recovery;

/// <summary>
/// The states of actors that went with nothing undecided, in the <see cref="IStateStore"/> that
/// goes with the log storage (file logs: a SQLite file beside them; any other storage: the
/// <see cref="IStateStore"/> registered, such as the Azure table that
/// <c>AddSnapperAzureTableLogStorage</c> adds) (docs/architecture.md, "An activation goes"): written as an activation
/// goes, read as the next one starts, on any silo. A row holds what the activation would have left
/// in <see cref="CommittedStates"/> (a <see cref="CommittedState"/>: the state, the watermarks of the
/// batches it saw, the outcomes still asked for), so an idle actor costs its silo nothing.
/// Activations that go together share one store write (one fsync). Without a store (memory logs, or
/// a log storage of the application's own without one) states rest in <see cref="CommittedStates"/>.
/// </summary>
/// <remarks>
/// A checkpoint round writes here the states its sealed parts held (<see cref="Store"/>) and
/// truncates them from the logs once the rows are durable: then the row is the state's only
/// record, and the logs hold only what came after (docs/architecture.md, "Checkpoints"). A row an
/// activation writes as it goes is never newer than the logs, so a write that fails or comes late
/// loses nothing; what the activation left then rests in memory.
/// Writes of one version are ordered by <see cref="CommittedState.Sequence"/>, the activation's place
/// in the actor's chain: a row written late (its writer gave up waiting) cannot replace a later
/// activation's; an activation after a failover jumps the sequence (<see cref="ActivationLoader"/>),
/// so a silo that paused, was declared dead and wakes cannot replace the survivors' rows either,
/// and a silo whose log was fenced writes none (nor one whose logs failed a write: it keeps states
/// in memory, and its operator hears of the failure once, from the log).
/// </remarks>
internal sealed class StatesAtRest : IAsyncDisposable
{
    private const int MostPerWrite = 1024;
    private readonly IStateStore? store;
    private readonly bool ownsStore;
    private readonly Serializer<CommittedState> serializer;
    private readonly LogWriterPool logs;
    private readonly ILogger diagnostics;
    private readonly Channel<Pending> queue = Channel.CreateUnbounded<Pending>(new UnboundedChannelOptions { SingleReader = true });
    private readonly Lazy<Task> writer;

    public StatesAtRest(ILogStorage storage, IServiceProvider services, Serializer<CommittedState> serializer, LogWriterPool logs, ILoggerFactory loggerFactory)
    {
        (store, ownsStore) = storage is Logging.FileStorage.FileLogStorage files
            ? (new SqliteStateStore(Path.Combine(files.Root, StoreFile)), true)
            : (services.GetService(typeof(IStateStore)) as IStateStore, false);
        this.serializer = serializer;
        this.logs = logs;
        diagnostics = loggerFactory.CreateLogger("Snapper.Actor");
        writer = new Lazy<Task>(() => Task.Run(WriteLoop));
    }

    /// <summary>The store's file beside a file log storage's logs.</summary>
    internal const string StoreFile = "states.db";

    /// <summary>False without a store, or without logs (a row must never outlive the logs it copies): states rest in memory.</summary>
    public bool Enabled => store is not null && logs.Enabled;

    /// <summary>The row of <paramref name="actor"/>, or null. A row that does not check fails the read (never "no state").</summary>
    public async Task<CommittedState?> Read(ActorId actor)
    {
        if (!Enabled || await store!.ReadAsync(actor, CancellationToken.None) is not { } row)
        {
            return null;
        }

        return Decode(actor, row);
    }

    /// <summary>
    /// The rows of <paramref name="actors"/>, in their order (null where none), each checked as by
    /// <see cref="Read"/>: a row that does not check is given as its error, the others are read.
    /// </summary>
    public async Task<(CommittedState? Row, InvalidDataException? Error)[]> ReadMany(IReadOnlyList<ActorId> actors, CancellationToken cancellationToken)
    {
        IReadOnlyList<StoredState?> rows;
        try
        {
            rows = await store!.ReadManyAsync(actors, cancellationToken);
        }
        catch (InvalidDataException)
        {
            // One of them does not check, and took the others' read with it: each on its own.
            var one = new (CommittedState?, InvalidDataException?)[actors.Count];
            for (var i = 0; i < actors.Count; i++)
            {
                try
                {
                    one[i] = Decoded(actors[i], await store!.ReadAsync(actors[i], cancellationToken));
                }
                catch (InvalidDataException e)
                {
                    one[i] = (null, e);
                }
            }

            return one;
        }

        return [.. actors.Select((actor, i) => Decoded(actor, rows[i]))];
    }

    private (CommittedState?, InvalidDataException?) Decoded(ActorId actor, StoredState? row)
    {
        try
        {
            return (row is { } r ? Decode(actor, r) : null, null);
        }
        catch (InvalidDataException e)
        {
            return (null, e);
        }
    }

    /// <summary>
    /// Writes a checkpoint round's <paramref name="states"/> as their actors' rows, in one store
    /// write, and reads them back: the round truncates what its logs said of these states once this
    /// completes, so it throws unless every row holds its state (or a later one) and reads as one.
    /// </summary>
    /// <returns>The bytes of the rows written.</returns>
    public async Task<long> Store(IReadOnlyList<(ActorId Actor, CommittedState State)> states, CancellationToken cancellationToken)
    {
        ThrowIfFenced();

        StoredState[] rows = [.. states.Select(s => Row(s.Actor, s.State))];
        await store!.WriteAsync(rows, cancellationToken);
        var written = await store.ReadManyAsync([.. states.Select(s => s.Actor)], cancellationToken); // checked by the store: no need to decode
        for (var i = 0; i < states.Count; i++)
        {
            if (written[i] is not { } row || row.Version < states[i].State.Version)
            {
                throw new InvalidDataException($"the state store did not keep {states[i].Actor}'s state at version {states[i].State.Version} (it holds {(written[i] is { } r ? $"version {r.Version}" : "none")}); the round truncates nothing.");
            }
        }

        return rows.Sum(r => (long)r.State.Length);
    }

    /// <summary>
    /// A row no actor has, written by every round before it seals a log (its version: the round):
    /// logs that begin with a seal are read only beside a store that has it
    /// (<see cref="CheckLogsCheckpointedHere"/>).
    /// </summary>
    internal static readonly ActorId Marker = ActorId.FromParts("snapper", "checkpointed-here");

    /// <summary>Round <paramref name="round"/> is about to seal this silo's logs: the <see cref="Marker"/> row first, durable.</summary>
    public async Task MarkCheckpointed(long round, CancellationToken cancellationToken)
    {
        if (!Enabled)
        {
            return;
        }

        ThrowIfFenced();

        await store!.WriteAsync([Row(Marker, new CommittedState(round, ReadOnlyMemory<byte>.Empty))], cancellationToken);
    }

    /// <summary>
    /// At start, when a log begins with a checkpoint round's seal (<paramref name="checkpointed"/>: it was truncated, or sealed empty):
    /// with a store, it must be one such a round wrote to, or the states that round moved out of the
    /// logs would silently read as the actors' initial ones; throws naming the store otherwise.
    /// </summary>
    public async Task CheckLogsCheckpointedHere(bool checkpointed, CancellationToken cancellationToken)
    {
        if (!checkpointed || !Enabled || await store!.ReadAsync(Marker, cancellationToken) is not null)
        {
            return;
        }

        var where = store is SqliteStateStore file ? $"'{file.Path}'" : $"the {store.GetType().Name}";
        throw new SnapperException(
            $"The logs were checkpointed into a store of states at rest, but {where} holds no checkpoint (was it deleted, or does the silo point at another?): the states the checkpoints moved there would read as new actors. The silo does not start.");
    }

    // A silo whose log a failover fenced writes no row: it may be a paused incarnation declared dead.
    private void ThrowIfFenced()
    {
        if (logs.IsFenced)
        {
            throw new LogFencedException("this silo's log was fenced by a failover: it writes no state at rest");
        }
    }

    private StoredState Row(ActorId actor, CommittedState state) =>
        new(actor, state.Version, serializer.SerializeToArray(state)) { Sequence = state.Sequence };

    private CommittedState Decode(ActorId actor, StoredState row)
    {
        CommittedState state;
        try
        {
            state = serializer.Deserialize(row.State);
        }
        catch (Exception e) when (e is not OutOfMemoryException)
        {
            throw new InvalidDataException($"the state store's entry of {actor} does not read as a state at rest ({e.Message}); the actor is not served from it.", e);
        }

        if (state.Version != row.Version || state.Sequence != row.Sequence)
        {
            throw new InvalidDataException($"the state store's entry of {actor} says version {row.Version} (sequence {row.Sequence}) but holds version {state.Version} (sequence {state.Sequence}); the actor is not served from it.");
        }

        return state;
    }

    /// <summary>
    /// Writes <paramref name="state"/> as <paramref name="actor"/>'s row, with whatever other
    /// activations go meanwhile. True once durable; false if there is no store, the silo is fenced,
    /// the write failed or <paramref name="cancellationToken"/> ended the wait (the caller keeps the
    /// state in memory then).
    /// </summary>
    public async Task<bool> Write(ActorId actor, CommittedState state, CancellationToken cancellationToken)
    {
        if (!Enabled || logs.IsFenced || logs.HasFailedWrites)
        {
            return false; // a silo whose logs fail keeps states in memory, as before the store: one failure, told once
        }

        var pending = new Pending(Row(actor, state), new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously));
        if (!queue.Writer.TryWrite(pending))
        {
            return false; // disposed: the silo is stopping
        }

        _ = writer.Value;
        try
        {
            return await pending.Durable.Task.WaitAsync(cancellationToken);
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    public async ValueTask DisposeAsync()
    {
        queue.Writer.TryComplete();
        if (writer.IsValueCreated)
        {
            await writer.Value;
        }

        if (ownsStore && store is IAsyncDisposable disposable)
        {
            await disposable.DisposeAsync();
        }
    }

    // One store write for every row queued meanwhile (up to MostPerWrite): a group commit. A row
    // whose writer gave up waiting is still written (it is a committed state; a later activation's
    // row has a higher sequence, so this one cannot replace it).
    private async Task WriteLoop()
    {
        var group = new List<Pending>();
        while (await queue.Reader.WaitToReadAsync())
        {
            while (group.Count < MostPerWrite && queue.Reader.TryRead(out var next))
            {
                group.Add(next);
            }

            bool durable;
            try
            {
                ThrowIfFenced();

                await store!.WriteAsync([.. group.Select(p => p.Row)], CancellationToken.None);
                durable = true;
            }
            catch (Exception e)
            {
                LogMessages.StatesNotStored(diagnostics, e, group.Count);
                durable = false;
            }

            foreach (var pending in group)
            {
                pending.Durable.TrySetResult(durable);
            }

            group.Clear();
        }
    }

    private sealed record Pending(StoredState Row, TaskCompletionSource<bool> Durable);
}
