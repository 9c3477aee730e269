namespace Snapper.Logging;

/// <summary>
/// An append refused because a failover fenced the log's writer (<see cref="ILogStorage.FenceAsync"/>):
/// its silo was declared dead and failed over. The group did not count and never will, unless
/// <see cref="MayHaveCounted"/>; either way the silo must stop, since the survivors now decide
/// what it left undecided.
/// </summary>
[GenerateSerializer]
public sealed class LogFencedException : IOException
{
    /// <summary>The append was refused: it did not count.</summary>
    public LogFencedException(string message)
        : base(message)
    {
    }

    /// <summary>The append may or may not count (<paramref name="mayHaveCounted"/>): nobody may be told either.</summary>
    public LogFencedException(string message, bool mayHaveCounted)
        : base(message)
    {
        MayHaveCounted = mayHaveCounted;
    }

    /// <summary>
    /// True if the storage could not tell whether the group counts (the fence was half made when
    /// the writer looked): neither a commit nor an abort may be reported for what it holds.
    /// </summary>
    [Id(0)]
    public bool MayHaveCounted { get; }
}
