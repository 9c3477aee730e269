using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Diagnostics;
using Snapper.Configuration;

namespace Snapper.Checkpointing;

/// <summary>
/// In the silo lifecycle: once the silo is active, makes sure the cluster's <see cref="Checkpointer"/>
/// is active, so its rounds run (it activates elsewhere if its silo stops, when the next silo starts).
/// </summary>
internal sealed class CheckpointStart(IGrainFactory grains, IOptions<SnapperOptions> options, ILogger<CheckpointStart> diagnostics) : ILifecycleParticipant<ISiloLifecycle>
{
    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(CheckpointStart), ServiceLifecycleStage.Active, Start);

    private async Task Start(CancellationToken cancellationToken)
    {
        if (options.Value.CheckpointInterval == TimeSpan.Zero || options.Value.Logging == LoggingMode.None)
        {
            return;
        }

        try
        {
            await grains.GetGrain<ICheckpointer>(0).Ensure().WaitAsync(cancellationToken);
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            LogMessages.CheckpointFailed(diagnostics, e, 0);
        }
    }
}
