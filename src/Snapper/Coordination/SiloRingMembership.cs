using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Diagnostics;
using Snapper.Recovery;
using Snapper.Configuration;
using Snapper.Protocol;

namespace Snapper.Coordination;

/// <summary>
/// The silo's side of the ring, in the silo lifecycle: once the silo is active (after recovery,
/// before the host's start completes) its coordinators join the ring; when it stops they leave it,
/// hand the token on, and get a few seconds to resolve the batches they emitted.
/// </summary>
internal sealed class SiloRingMembership(
    IGrainFactory grains,
    ILocalSiloDetails silo,
    IOptions<SnapperOptions> options,
    CommittedStates recovered,
    ILogger<SiloRingMembership> diagnostics) : ILifecycleParticipant<ISiloLifecycle>
{
    private static readonly TimeSpan DrainTime = TimeSpan.FromSeconds(5);

    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(SiloRingMembership), ServiceLifecycleStage.Active, Join, Leave);

    private Task Join(CancellationToken cancellationToken) =>
        grains.GetGrain<IRingMembership>(0).Join(silo.Name, silo.SiloAddress.ToParsableString(), options.Value.CoordinatorCount, recovered.MaxTid).WaitAsync(cancellationToken);

    private async Task Leave(CancellationToken cancellationToken)
    {
        try
        {
            var view = await grains.GetGrain<IRingMembership>(0).Leave(silo.Name).WaitAsync(DrainTime, cancellationToken);
            if (view.Members.IsEmpty)
            {
                return; // the whole cluster is stopping: nobody to hand anything to
            }

            var until = DateTime.UtcNow + DrainTime;
            for (var i = 0; i < options.Value.CoordinatorCount && DateTime.UtcNow < until; i++)
            {
                var coordinator = grains.GetGrain<ICoordinator>(CoordinatorKey.For(silo.Name, i));
                while ((await coordinator.Status()) is { HoldsToken: true } or { Unresolved: > 0 } && DateTime.UtcNow < until)
                {
                    await Task.Delay(20, cancellationToken);
                }
            }
        }
        catch (Exception e) when (e is not OperationCanceledException)
        {
            LogMessages.RingLeaveFailed(diagnostics, e, silo.Name);
        }
    }
}
