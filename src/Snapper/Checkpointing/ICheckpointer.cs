using Orleans.Concurrency;

namespace Snapper.Checkpointing;

/// <summary>The cluster's checkpoint rounds (docs/architecture.md, "Checkpoints"): one grain, key 0.</summary>
internal interface ICheckpointer : IGrainWithIntegerKey
{
    /// <summary>Runs one round now, over every active silo; throws if it had to be given up (nothing was truncated then).</summary>
    [ResponseTimeout(Checkpointer.WriteTimeout)]
    Task<CheckpointReport> Run();

    /// <summary>A silo, once active → the checkpointer: be active, so rounds run every <see cref="Configuration.SnapperOptions.CheckpointInterval"/>.</summary>
    [AlwaysInterleave]
    Task Ensure();
}
