namespace Snapper.Coordination;

/// <summary>Where this process sends NewPact and ACT tid requests.</summary>
internal interface ICoordinatorDirectory
{
    /// <summary>The coordinator for a PACT that starts on <paramref name="root"/>, and its key.</summary>
    ValueTask<(string Key, ICoordinator Coordinator)> ForPact(ActorId root);

    /// <summary>A coordinator to take a range of ACT tids from.</summary>
    ValueTask<ICoordinator> ForTids();

    /// <summary>A coordinator it named could not be reached (its silo may have left): look again next time.</summary>
    void Refresh();
}
