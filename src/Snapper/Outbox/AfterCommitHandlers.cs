using System.Collections.Concurrent;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Serialization;
using Snapper.Logging;

namespace Snapper.Outbox;

/// <summary>
/// The application's <see cref="IAfterCommitHandler{TMessage}"/>s, found in the silo's services by
/// message type: what an actor registers is checked and serialized here (at registration, so a
/// message no handler takes, or one Orleans cannot serialize, fails the body that registered it,
/// not a delivery after the commit), and what is owed is decoded and handed to its handler here.
/// </summary>
internal sealed class AfterCommitHandlers(IServiceProvider services, Serializer serializer)
{
    private readonly ConcurrentDictionary<Type, Func<object, AfterCommitContext, CancellationToken, Task>?> dispatchers = new();

    /// <summary>
    /// The action <paramref name="actor"/> registers in transaction <paramref name="tid"/>, its
    /// <paramref name="seq"/>-th there; throws <see cref="SnapperException"/> if no handler takes
    /// the message's type.
    /// </summary>
    public AfterCommitAction Register(long tid, ActorId actor, int seq, object message)
    {
        ArgumentNullException.ThrowIfNull(message);
        if (DispatcherFor(message.GetType()) is null)
        {
            throw new SnapperException($"{actor} registered an after-commit action of type {message.GetType().FullName}, but no handler takes it: add AddAfterCommitHandler<{message.GetType().Name}, …>() to AddSnapper on every silo.");
        }

        return new AfterCommitAction(tid, actor, seq, serializer.SerializeToArray<object>(message));
    }

    /// <summary>
    /// <paramref name="action"/>'s message, decoded, and its handler's call; throws if it does not
    /// decode or no handler takes it on this silo.
    /// </summary>
    public (object Message, Func<object, AfterCommitContext, CancellationToken, Task> Dispatch) Prepare(AfterCommitAction action)
    {
        var message = serializer.Deserialize<object>(action.Message) ?? throw new InvalidDataException($"After-commit action {action.Id} decoded to null.");
        var dispatch = DispatcherFor(message.GetType())
            ?? throw new SnapperException($"No handler takes after-commit action {action.Id} of type {message.GetType().FullName} on this silo: add AddAfterCommitHandler<{message.GetType().Name}, …>() to AddSnapper.");
        return (message, dispatch);
    }

    private Func<object, AfterCommitContext, CancellationToken, Task>? DispatcherFor(Type type) =>
        dispatchers.GetOrAdd(type, static (type, services) =>
        {
            var handlerType = typeof(IAfterCommitHandler<>).MakeGenericType(type);
            if (services.GetService(handlerType) is null)
            {
                return null;
            }

            var method = typeof(AfterCommitHandlers).GetMethod(nameof(Dispatch), System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Static)!.MakeGenericMethod(type);
            return (Func<object, AfterCommitContext, CancellationToken, Task>)method.Invoke(null, [services])!;
        }, services);

    private static Func<object, AfterCommitContext, CancellationToken, Task> Dispatch<TMessage>(IServiceProvider services)
    {
        var handler = services.GetRequiredService<IAfterCommitHandler<TMessage>>();
        return (message, context, cancellationToken) => handler.HandleAsync((TMessage)message, context, cancellationToken);
    }
}
