namespace Snapper.Grains;

/// <summary>
/// A grain each silo has one of, reached by the other silos: bound to its silo
/// (<see cref="SiloBoundPlacementAttribute"/>, key <c>{silo}/{role}</c>) and never collected. Its
/// activation never completes synchronously: a grain activated synchronously runs its first request
/// under the activation's lock, and two such grains calling each other deadlock.
/// </summary>
internal abstract class SiloBoundGrain : Grain
{
    /// <inheritdoc />
    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        await Task.Yield();
        await base.OnActivateAsync(cancellationToken);
    }
}
