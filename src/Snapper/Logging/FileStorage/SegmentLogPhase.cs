namespace Snapper.Logging.FileStorage;

/// <summary>Where a <see cref="SegmentLog"/> stands.</summary>
internal enum SegmentLogPhase
{
    /// <summary>What is on disk has not been read yet (first use, or after a failure that wrote nothing).</summary>
    Unscanned,

    /// <summary>The durable tail is known; appends go there.</summary>
    Ready,

    /// <summary>
    /// Fail-stop: a group's write or fsync failed, so what the file holds past the acknowledged tail
    /// is unknown. Every later append fails until a restart recovers the log from disk.
    /// </summary>
    Stopped,

    /// <summary>
    /// A failover fenced this log's owner (<see cref="LogFence"/>): its silo was declared dead.
    /// Every later append fails without writing.
    /// </summary>
    Fenced,

    /// <summary>Closed with its storage.</summary>
    Disposed,
}
