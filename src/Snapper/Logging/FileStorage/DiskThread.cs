using System.Collections.Concurrent;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// The thread of its own on which one log makes its blocking calls: the write and the fsync of
/// each group, and the segment and folder creation that may come with it.
/// </summary>
/// <remarks>
/// Linux has no asynchronous fsync, so some thread blocks for every group commit. On the thread
/// pool that thread is one of the few that run every grain: on a 2-core silo a blocked worker is
/// half the silo, and the pool adds workers only after it has seen them stuck for a while (figures
/// in docs/decisions.md, "A thread of its own for the disk"). A thread of the log's own makes the
/// disk wait nobody else's. The caller's continuation runs on the pool, never here,
/// so this thread does nothing but the disk's calls (and nothing can make it wait for itself).
/// </remarks>
internal sealed class DiskThread : IDisposable
{
    private readonly BlockingCollection<(Action Work, TaskCompletionSource Done)> queue = new();
    private readonly Thread thread;

    public DiskThread(string log)
    {
        // A background thread: a storage that is never disposed must not keep the process alive.
        thread = new Thread(Serve) { IsBackground = true, Name = $"Snapper disk: {log}" };
        thread.Start();
    }

    /// <summary>Runs <paramref name="work"/> on this thread; the task ends as it does, with its exception.</summary>
    public Task RunAsync(Action work)
    {
        // Asynchronous continuations: the caller's code must never run on (and block) this thread.
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        queue.Add((work, done));
        return done.Task;
    }

    /// <summary>Lets the work already queued finish, then ends the thread.</summary>
    public void Dispose()
    {
        queue.CompleteAdding();
        thread.Join();
        queue.Dispose();
    }

    private void Serve()
    {
        foreach (var (work, done) in queue.GetConsumingEnumerable())
        {
            try
            {
                work();
                done.SetResult();
            }
            catch (Exception e)
            {
                done.SetException(e);
            }
        }
    }
}
