namespace Snapper.Tests.Infrastructure;

/// <summary>
/// Runs a test body as an activation runs its turns: one at a time on one exclusive scheduler, so
/// a continuation that resumes after a timer (a lock wait giving up, say) never runs beside another.
/// Types documented "not thread-safe, touched only in the actor's turns" need this in a unit test.
/// </summary>
internal static class ActorTurns
{
    public static Task Run(Func<Task> body) =>
        Task.Factory.StartNew(body, CancellationToken.None, TaskCreationOptions.None, new ConcurrentExclusiveSchedulerPair().ExclusiveScheduler).Unwrap();
}
