using System.Collections.Concurrent;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// Named one-shot signals shared by a test and its actors, so a test can stop a transaction at an
/// exact point and build an interleaving deterministically instead of by timing.
/// </summary>
public sealed class Gates
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(20);
    private readonly ConcurrentDictionary<string, TaskCompletionSource> signals = new();

    public void Signal(string name) => Get(name).TrySetResult();

    /// <summary>Waits for <paramref name="name"/>; fails instead of hanging if it never comes.</summary>
    public Task Until(string name)
    {
        Get(Awaited(name)).TrySetResult();
        return Get(name).Task.WaitAsync(Patience);
    }

    /// <summary>Waits until something waits for <paramref name="name"/> (an actor's call has come that far).</summary>
    public Task UntilAwaited(string name) => Get(Awaited(name)).Task.WaitAsync(Patience);

    public bool IsSignalled(string name) => Get(name).Task.IsCompleted;

    private static string Awaited(string name) => $"awaited\0{name}";

    private TaskCompletionSource Get(string name) =>
        signals.GetOrAdd(name, _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));
}
