using Snapper;

namespace ListAppend;

/// <summary>
/// The after-commit action of an append (<c>--after-commit</c>): list <paramref name="List"/> took
/// transaction <paramref name="Tid"/>'s append, and the transaction committed.
/// </summary>
[GenerateSerializer, Immutable, Alias("listappend.appended")]
public sealed record Appended([property: Id(0)] ActorId List, [property: Id(1)] long Tid);
