using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Act;
using Snapper.Coordination;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Logging;
using Snapper.Logging.FileStorage;
using Snapper.Pact;
using Snapper.Recovery;
using Snapper.Serialization;
using Snapper.State;
using Snapper;
using Snapper.Configuration;
using Snapper.Hosting;

// In Orleans' hosting namespace, where Orleans users find UseTransactions and the other hosting verbs.
namespace Orleans.Hosting;

/// <summary>The hosting verb: <c>siloBuilder.AddSnapper(snapper => ...)</c>.</summary>
public static class SnapperSiloBuilderExtensions
{
    /// <summary>
    /// Adds the Snapper runtime to a silo: the coordinator ring, loggers, recovery (which runs in
    /// the silo's start-up, before grains serve calls) and an <see cref="ISnapperClient"/> for
    /// grains and the host. Transactional actors are the grain classes deriving from
    /// <see cref="TransactionalActor{TState}"/> that Orleans finds; nothing else registers them.
    /// Services registered before this call (log storage, state serializer, clock) win.
    /// </summary>
    public static ISiloBuilder AddSnapper(this ISiloBuilder silo, Action<SnapperBuilder>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(silo);
        var services = silo.Services;
        SnapperClientBuilderExtensions.AddTransactionStarts<SiloCoordinators>(services, "silo", configure);

        // Orleans' default grain directory deactivates a surviving silo's activations whose directory
        // entry was kept by a silo that died; an actor or coordinator taking part in an undecided
        // transaction must not lose it that way (docs/architecture.md, "A silo dies"). The
        // distributed directory recovers those entries instead.
#pragma warning disable ORLEANSEXP003 // experimental in Orleans 10; the behaviour Snapper's failover needs
        silo.AddDistributedGrainDirectory();
#pragma warning restore ORLEANSEXP003
        services.TryAddSingleton<ILogStorage>(sp =>
        {
            // Chosen by the options; a storage registered before AddSnapper wins over both.
            var settings = sp.GetRequiredService<IOptions<SnapperOptions>>().Value;
            return settings.Logging == LoggingMode.File
                ? new FileLogStorage(new FileLogStorageOptions { Directory = settings.LogDirectory! }, sp.GetService<ILogger<FileLogStorage>>())
                : new InMemoryLogStorage();
        });
        services.TryAddSingleton<IStateSerializer, OrleansStateSerializer>();
        services.AddSingleton<Snapper.Coordination.BatchLatency>();
        services.AddSingleton<Snapper.Coordination.BatchCommits>();
        services.AddSingleton<CoordinatorInboxes>();
        services.AddSingleton<LogWriterPool>();
        services.AddSingleton<Snapper.Outbox.AfterCommitHandlers>();
        services.AddSingleton<Snapper.Outbox.AfterCommitOutbox>();
        services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>>(sp => sp.GetRequiredService<Snapper.Outbox.AfterCommitOutbox>());
        services.AddSingleton<ActCommitCoordinator>();
        services.AddSingleton<ActOutcomes>();
        services.AddSingleton<CommittedStates>();
        services.AddSingleton<StatesAtRest>();
        silo.AddGrainService<StateHandoff>();
        services.AddSingleton<StateHandoffs>();
        services.AddSingleton<LogRecovery>();
        services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>>(sp => sp.GetRequiredService<LogRecovery>());
        services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>, SiloRingMembership>();
        services.AddSingleton<Snapper.Failover.DepartedSilos>();
        services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>>(sp => sp.GetRequiredService<Snapper.Failover.DepartedSilos>());
        services.AddSingleton<ILifecycleParticipant<ISiloLifecycle>, Snapper.Checkpointing.CheckpointStart>();
        services.AddPlacementDirector<SiloBoundPlacement, SiloBoundPlacementDirector>();
        services.AddSingleton<ActiveActors>();
        services.AddSingleton<IDepartures>(sp => sp.GetRequiredService<Snapper.Failover.DepartedSilos>());
        services.AddSingleton<ActivationLoader>();
        services.AddSingleton<ActServices>();
        services.AddSingleton<LateAnswers>();
        services.AddSingleton<PactServices>();
        silo.AddOutgoingGrainCallFilter<ExecutionInfoCallFilter>();
        return silo;
    }
}
