namespace Snapper.Act;

/// <summary>A participant's view of one ACT: executing, or prepared and waiting for the decision.</summary>
internal enum ActRecordState : byte
{
    /// <summary>User code may run, take locks and write the working copy. May abort on its own.</summary>
    Active = 1,

    /// <summary>Voted yes with its new state logged: must wait for the root's decision.</summary>
    Prepared = 2,

    /// <summary>
    /// Its only writer here, committing in one phase: the decision is this actor's, made once its
    /// commit record is durable, and nobody else may take the record meanwhile.
    /// </summary>
    Committing = 3,
}
