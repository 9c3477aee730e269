namespace Snapper.History;

/// <summary>
/// What a transaction observed when it appended its tid to one actor's list: the list's length and its
/// last tid <em>before</em> the append.
/// </summary>
/// <param name="Actor">The actor whose list was appended to.</param>
/// <param name="PrefixLen">The list's length before the append, i.e. the index the tid should land at.</param>
/// <param name="PrevTid">The list's last tid before the append, or <see langword="null"/> if it was empty.</param>
public sealed record AppendObservation(string Actor, int PrefixLen, long? PrevTid);
