using System.Diagnostics;
using Orleans.Runtime.Diagnostics;

namespace Snapper.Grains;

/// <summary>
/// Tells a transactional actor the moment Orleans starts to deactivate it, through Orleans' grain
/// lifecycle diagnostic events. From then on the activation takes no message until every call
/// running in it has returned (<c>OnDeactivateAsync</c> comes only after that), so calls waiting
/// there for another message must end at once (<see cref="IDeactivating.Deactivating"/>).
/// One subscription per process: the events are process-wide.
/// </summary>
internal static class DeactivationSignal
{
    private static int subscribed;

    public static void EnsureSubscribed()
    {
        if (Interlocked.Exchange(ref subscribed, 1) == 0)
        {
            DiagnosticListener.AllListeners.Subscribe(new Listeners());
        }
    }

    private sealed class Listeners : IObserver<DiagnosticListener>
    {
        public void OnNext(DiagnosticListener listener)
        {
            if (listener.Name == GrainLifecycleEvents.ListenerName)
            {
                listener.Subscribe(new Events(), static name => name == nameof(GrainLifecycleEvents.Deactivating));
            }
        }

        public void OnCompleted()
        {
        }

        public void OnError(Exception error)
        {
        }
    }

    private sealed class Events : IObserver<KeyValuePair<string, object?>>
    {
        // Raised inside Orleans' lock on the activation, on whatever thread asked: the actor reacts
        // in its own turn.
        public void OnNext(KeyValuePair<string, object?> value)
        {
            if (value.Value is GrainLifecycleEvents.Deactivating { GrainContext: var context } && context.GrainInstance is IDeactivating actor)
            {
                context.Scheduler.QueueAction(actor.Deactivating);
            }
        }

        public void OnCompleted()
        {
        }

        public void OnError(Exception error)
        {
        }
    }
}

/// <summary>An actor that reacts when Orleans starts to deactivate it (<see cref="DeactivationSignal"/>).</summary>
internal interface IDeactivating
{
    /// <summary>Runs in the actor's turn once its deactivation has started.</summary>
    void Deactivating();
}
