namespace Snapper.Coordination;

/// <summary>A contiguous range of tids [<see cref="First"/>, <see cref="First"/> + <see cref="Count"/>).</summary>
[GenerateSerializer, Immutable]
internal readonly record struct TidRange(long First, int Count);
