namespace Snapper.Logging.FileStorage;

/// <summary>What <see cref="FileLogStorage.SalvageAsync"/> found in one log, and what it moved aside.</summary>
/// <param name="Log">The log's name.</param>
/// <param name="Segment">The segment where the damage starts; null if the log had none, and nothing was changed.</param>
/// <param name="Offset">Where in <paramref name="Segment"/> the damage starts: the log keeps the bytes before it.</param>
/// <param name="Problem">What is wrong there, and why it is not a torn tail.</param>
/// <param name="KeptFrames">The intact frames (records) the log keeps.</param>
/// <param name="LostBytes">The bytes moved aside.</param>
/// <param name="LostFrames">Intact frames found among the bytes moved aside: records the log no longer has.</param>
/// <param name="MovedAside">Where the bytes moved aside are now (whole copies of the segments they came from).</param>
public sealed record LogSalvageReport(string Log, string? Segment, long Offset, string? Problem, long KeptFrames, long LostBytes, long LostFrames, IReadOnlyList<string> MovedAside)
{
    /// <summary>Whether the log was damaged (and so changed).</summary>
    public bool Salvaged => Segment is not null;
}
