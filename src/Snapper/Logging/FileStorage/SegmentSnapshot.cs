namespace Snapper.Logging.FileStorage;

/// <summary>
/// What a read covers: the segments present when it started, and how much of the last one was
/// durable then. A read never sees a group that is still being written.
/// </summary>
internal sealed record SegmentSnapshot(string Log, string Directory, long[] Sequences, long TailLength);
