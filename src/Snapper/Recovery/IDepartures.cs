namespace Snapper.Recovery;

/// <summary>
/// What an activating actor needs to know of silos that left the cluster (implemented by the
/// failover, <see cref="Failover.DepartedSilos"/>, which reads the logs through this folder).
/// </summary>
internal interface IDepartures
{
    /// <summary>True once any silo has departed since this one started.</summary>
    bool Any { get; }

    /// <summary>Whether <paramref name="silo"/> is an active member of the cluster now.</summary>
    bool IsActive(string silo);

    /// <summary>
    /// Whether <paramref name="silo"/> is a member that still answers: active, or stopping gracefully
    /// (its grains deactivating, handing their states on).
    /// </summary>
    bool IsRunning(string silo);

    /// <summary>Whether a member in <paramref name="status"/> still answers (<see cref="IsRunning"/>).</summary>
    static bool Answers(SiloStatus status) => status is SiloStatus.Active or SiloStatus.ShuttingDown or SiloStatus.Stopping;

    /// <summary>
    /// Completes once every failover under way is sealed, but those of the silo incarnations in
    /// <paramref name="answered"/> (silos stopping gracefully that answered for what they hold),
    /// with the latest seal (null: none).
    /// </summary>
    Task<FailoverSeal?> WhenSettled(IReadOnlyCollection<SiloAddress> answered);
}
