namespace Snapper.Protocol;

/// <summary>What an actor did in an ACT; decides what two-phase commit asks of it.</summary>
[GenerateSerializer]
internal enum ParticipantRole : byte
{
    /// <summary>Called, but took no lock: only its transaction record must be dropped.</summary>
    Visitor = 0,

    /// <summary>Took a read lock: votes read-only in phase one and skips phase two.</summary>
    Reader = 1,

    /// <summary>Took a write lock: logs its new state in Prepare and waits for the decision.</summary>
    Writer = 2,
}
