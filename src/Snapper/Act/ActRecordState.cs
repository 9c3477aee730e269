namespace Snapper.Act;

/// <summary>A participant's view of one ACT: executing, or prepared and waiting for the decision.</summary>
internal enum ActRecordState : byte
{
    /// <summary>User code may run, take locks and write the working copy. May abort on its own.</summary>
    Active = 1,

    /// <summary>Voted yes with its new state logged: must wait for the root's decision.</summary>
    Prepared = 2,
}
