namespace Snapper.Recovery;

/// <summary>
/// What the logs said at start-up: each actor's last committed state (serialized) and the highest
/// tid ever logged. Filled once by <see cref="LogRecovery"/> before the silo serves; read by actors
/// when they activate.
/// </summary>
internal sealed class RecoveredState
{
    private readonly Dictionary<ActorId, ReadOnlyMemory<byte>> states = new();

    /// <summary>The highest tid or bid found in any log (0 for empty logs).</summary>
    public long MaxTid { get; private set; }

    /// <summary>Actors with a recovered state.</summary>
    public int Count => states.Count;

    public bool TryGet(ActorId actor, out ReadOnlyMemory<byte> state) => states.TryGetValue(actor, out state);

    internal void Set(ActorId actor, ReadOnlyMemory<byte> state) => states[actor] = state;

    internal void SawTid(long tid) => MaxTid = Math.Max(MaxTid, tid);
}
