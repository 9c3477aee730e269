using System.Diagnostics;
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

    /// <summary>How long a starting silo keeps asking to join before its start fails.</summary>
    private static readonly TimeSpan JoinPatience = TimeSpan.FromMinutes(1);

    public void Participate(ISiloLifecycle lifecycle) =>
        lifecycle.Subscribe(nameof(SiloRingMembership), ServiceLifecycleStage.Active, Join, Leave);

    /// <summary>
    /// Joins the ring, asking again while no answer comes in time: the membership grain may be
    /// activating (it reads the ring's log first) on a slow or busy machine, and a silo should not
    /// fail its start for that. A Join that did arrive and is asked again changes nothing (the
    /// coordinators already in the view are not added twice; the token is issued once).
    /// </summary>
    private async Task Join(CancellationToken cancellationToken)
    {
        var started = Stopwatch.GetTimestamp();
        while (true)
        {
            try
            {
                await grains.GetGrain<IRingMembership>(0).Join(silo.Name, silo.SiloAddress.ToParsableString(), options.Value.CoordinatorCount, recovered.MaxTid).WaitAsync(cancellationToken);
                return;
            }
            catch (TimeoutException) when (Stopwatch.GetElapsedTime(started) < JoinPatience)
            {
                LogMessages.RingJoinSlow(diagnostics, silo.Name, Stopwatch.GetElapsedTime(started));
            }
            catch (TimeoutException e)
            {
                throw new TimeoutException($"silo {silo.Name} could not join the coordinator ring: no answer within {JoinPatience.TotalSeconds:0} s", e);
            }
        }
    }

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
