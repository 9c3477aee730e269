namespace Snapper.History;

/// <summary>The kinds of anomaly <see cref="ListAppendChecker"/> reports.</summary>
public enum ViolationKind
{
    /// <summary>A committed transaction's tid is missing from the list of one of its declared actors.</summary>
    LostAppend,

    /// <summary>A tid appears more than once in one list.</summary>
    DuplicateAppend,

    /// <summary>
    /// A committed append is not where its transaction observed it: not at index <c>prefixLen</c>, or not
    /// right after <c>prevTid</c>.
    /// </summary>
    WrongPosition,

    /// <summary>A committed or unknown-outcome tid appears in the list of an actor it did not declare.</summary>
    AppendOutsideDeclaredActors,

    /// <summary>An aborted transaction's tid is visible in a list.</summary>
    AbortedAppendVisible,

    /// <summary>An unknown-outcome tid is in some but not all of its declared actors' lists.</summary>
    PartialUnknown,

    /// <summary>A list holds a tid the history never mentions.</summary>
    UnknownTid,

    /// <summary>The precedence graph (list order on every actor) has a cycle: no serial order explains the lists.</summary>
    Cycle,

    /// <summary>
    /// The history itself is inconsistent (a tid with several entries, a committed transaction without an
    /// observation for a declared actor, an observation for an undeclared actor, a negative prefixLen, ...),
    /// so some checks could not be made for that transaction.
    /// </summary>
    MalformedHistory,
}
