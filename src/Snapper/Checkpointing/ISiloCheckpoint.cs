using Snapper.Protocol;

namespace Snapper.Checkpointing;

/// <summary>
/// One silo's part in a checkpoint round (docs/architecture.md, "Checkpoints"): a grain bound to its
/// silo (key <c>{silo}/checkpoint</c>), called by the <see cref="ICheckpointer"/> step by step.
/// </summary>
internal interface ISiloCheckpoint : IGrainWithStringKey
{
    /// <summary>Checkpointer → silo: seal every log of this silo for round <paramref name="round"/>; returns each log's mark, in logger order.</summary>
    Task<long[]> Seal(long round);

    /// <summary>Checkpointer → silo: true if none of this silo's logs took a record for a transaction since its last seal.</summary>
    Task<bool> Quiet();

    /// <summary>Checkpointer → silo: wait for <paramref name="step"/> on every actor active here (<see cref="Protocol.ISnapperParticipant.Settle"/>).</summary>
    Task Settle(SettleStep step, DateTimeOffset until);

    /// <summary>Checkpointer → silo: completes once every record this silo's loggers took so far is durable (or failed). Ring membership → survivor: the same, in a failover.</summary>
    Task Flush();

    /// <summary>Checkpointer → silo: read every log, write round <paramref name="round"/>'s checkpoint of this silo's sealed parts, and wait until it is durable.</summary>
    /// <remarks>Its time grows with what changed since the last round (a round after a million actors were written writes a million rows), past Orleans' 30-second default; the bound is the round's own.</remarks>
    [ResponseTimeout(Checkpointer.WriteTimeout)]
    Task<CheckpointReport> Write(long round);

    /// <summary>Checkpointer → silo, once every silo's checkpoint is durable: truncate this silo's logs at <paramref name="marks"/> (from <see cref="Seal"/>).</summary>
    Task Truncate(long[] marks);
}
