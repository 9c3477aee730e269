namespace Snapper.Logging;

/// <summary>
/// An action an actor registered inside a transaction, to run once the transaction has committed
/// (<c>TransactionalActor.AfterCommit</c>): the message for the application's handler, serialized
/// when it was registered. It travels to the transaction's decider (an ACT's root in its execution
/// info, a PACT's coordinator in BatchComplete) and is logged beside the decision
/// (<see cref="AfterCommitRecord"/>), so it is owed exactly when the transaction committed.
/// </summary>
/// <param name="Tid">The transaction that registered it.</param>
/// <param name="Actor">The actor it was registered on.</param>
/// <param name="Seq">Its place among the actions the transaction registered on that actor (0, 1, …).</param>
/// <param name="Message">The message, in Orleans' serialized form with its type.</param>
[GenerateSerializer, Immutable]
internal sealed record AfterCommitAction(
    [property: Id(0)] long Tid,
    [property: Id(1)] ActorId Actor,
    [property: Id(2)] int Seq,
    [property: Id(3)] byte[] Message)
{
    /// <summary>The action's stable id: what a handler drops repeats by.</summary>
    public AfterCommitId Id => new(Tid, Actor, Seq);
}

/// <summary>Names one <see cref="AfterCommitAction"/>: the transaction, the actor it was registered on, and its place there.</summary>
[GenerateSerializer, Immutable]
internal readonly record struct AfterCommitId([property: Id(0)] long Tid, [property: Id(1)] ActorId Actor, [property: Id(2)] int Seq)
{
    /// <inheritdoc />
    public override string ToString() => $"{Tid}/{Actor}/{Seq}";
}
