namespace Snapper.LoadGen.Workloads;

/// <summary>
/// The actors a workload drives in a mode, as Orleans grains (for what only Orleans can do to
/// them: the nemesis' deactivation and migration requests) and, where the workload has one, a
/// plain read of each (the liveness probe after the nemesis).
/// </summary>
public interface IWorkloadActors
{
    /// <summary>Every actor <paramref name="mode"/> may use, as a grain of <paramref name="grains"/>.</summary>
    IReadOnlyList<IAddressable> Grains(string mode, IGrainFactory grains);

    /// <summary>
    /// Reads actor <c>i</c> of <see cref="Grains"/> in <paramref name="mode"/> (a read-only
    /// transaction of the mode, or a plain call where the mode makes those); null if the workload
    /// has no such read.
    /// </summary>
    Func<int, Task>? Read(string mode);
}
