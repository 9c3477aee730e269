using Snapper;

namespace ListAppend;

/// <summary>What one append saw: the list's length and last tid before it, on which actor.</summary>
[GenerateSerializer]
public sealed record AppendResult(ActorId Actor, int PrefixLen, long? PrevTid);
