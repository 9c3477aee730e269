namespace Snapper.Coordination;

/// <summary>
/// Coordinator → a coordinator or actor waiting there for one of its batches
/// (<see cref="ICoordinator.WaitResolved"/>, <see cref="ICoordinator.WaitDecided"/>): its silo is
/// stopping, and its batches not resolved yet are decided by that silo's failover once it is gone,
/// which the asker asks then (<see cref="CoordinatorReferences"/>). The wait ends here instead, so
/// that the coordinator can deactivate: Orleans holds a grain's deactivation until the calls
/// running in it return. Never reaches user code.
/// </summary>
[GenerateSerializer]
internal sealed class CoordinatorStoppingException : Exception
{
    public CoordinatorStoppingException(string coordinator, long bid)
        : base($"coordinator {coordinator} is stopping with its silo; batch {bid} is decided by that silo's failover once it is gone")
    {
    }
}
