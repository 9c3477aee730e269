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
    public Task Until(string name) => Get(name).Task.WaitAsync(Patience);

    public bool IsSignalled(string name) => Get(name).Task.IsCompleted;

    private TaskCompletionSource Get(string name) =>
        signals.GetOrAdd(name, _ => new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously));
}
