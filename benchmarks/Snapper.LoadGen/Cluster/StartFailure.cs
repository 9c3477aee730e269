using Snapper.Logging.FileStorage;

namespace Snapper.LoadGen.Cluster;

/// <summary>
/// The one line a silo's failed start is reported as, by LoadGen for its embedded silos and by
/// SiloHost (linked into it): the first line of what made it fail; for a file log refused as
/// corrupt, how to salvage it; for a log another process writes, which log and who that may be.
/// </summary>
public static class StartFailure
{
    /// <summary>The line for <paramref name="failure"/>.</summary>
    /// <param name="failure">What the start threw.</param>
    /// <param name="logDirectory">The silo's file log folder, if it has one.</param>
    /// <param name="heldHint">For a log another process holds: who that may be, as a question.</param>
    public static string Describe(Exception failure, string? logDirectory, string heldHint)
    {
        ArgumentNullException.ThrowIfNull(failure);
        var cause = Cause(failure);
        if (cause is LogHeldException held)
        {
            return $"log {held.Log} in {held.Directory} is held by another process; {heldHint}";
        }

        var line = cause.Message.Split('\n')[0].TrimEnd();
        if (logDirectory is not null && cause.Data[FileLogStorage.DamagedSegmentKey] is string)
        {
            line += $" To salvage: Snapper.LoadGen salvage --log-dir {logDirectory}";
        }

        return line;
    }

    // The host rethrows what a hosted service threw, and Orleans' lifecycle what a stage threw, but
    // either may come wrapped: a log's refusal is what the operator must see.
    private static Exception Cause(Exception failure)
    {
        for (Exception? e = failure; e is not null; e = e is AggregateException { InnerExceptions.Count: 1 } single ? single.InnerExceptions[0] : e.InnerException)
        {
            if (e is LogHeldException || e.Data.Contains(FileLogStorage.DamagedSegmentKey))
            {
                return e;
            }
        }

        return failure;
    }
}
