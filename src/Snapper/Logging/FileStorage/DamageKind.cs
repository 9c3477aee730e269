namespace Snapper.Logging.FileStorage;

/// <summary>What the bytes from a segment's first bad frame to its end are (<see cref="SegmentDamage"/>).</summary>
internal enum DamageKind
{
    /// <summary>Zeros to the end: the space the writer fills ahead of its appends, not damage at all.</summary>
    ZerosAhead,

    /// <summary>The last group's write, cut short by a crash: never acknowledged, so it may be cut.</summary>
    Torn,

    /// <summary>Anything else: records may lie past it, so nothing may be cut without the operator.</summary>
    Corrupt,
}
