namespace Snapper.Logging.FileStorage;

/// <summary>The judgement of a segment's first bad frame (<see cref="SegmentDamage.Judge"/>).</summary>
/// <param name="Kind">Zeros ahead, a torn last group, or corruption.</param>
/// <param name="Offset">Where the first bad frame starts.</param>
/// <param name="Reason">What is wrong there and, for corruption, why it cannot be a crash.</param>
/// <param name="IntactAfter">The first intact frame found past the bad one, if any.</param>
/// <param name="FramesAfter">Intact frames found past the bad one (all of them only if asked to count all).</param>
internal sealed record DamageReport(DamageKind Kind, long Offset, string Reason, long? IntactAfter, long FramesAfter);
