using System.Collections.Immutable;

namespace Snapper.Protocol;

/// <summary>
/// The coordinators on the token ring, in ring order, and the epoch of this membership
/// (Snapper §4.2.1: each coordinator has fixed neighbours). Made by <see cref="Coordination.RingMembership"/>
/// when a silo joins or leaves, pushed to every coordinator, and carried by the token, so whoever
/// holds the token passes it along the newest view it has seen.
/// </summary>
/// <param name="Epoch">Grows with every change; the newer view wins.</param>
/// <param name="Members">The coordinators, in the order the token visits them.</param>
/// <param name="TidFloor">
/// The highest tid in the logs of any silo that joined: the token never hands out a tid at or below
/// it again, so tids keep increasing across restarts (§4.2.5).
/// </param>
[GenerateSerializer, Immutable]
internal sealed record RingView([property: Id(0)] long Epoch, [property: Id(1)] ImmutableArray<string> Members, [property: Id(2)] long TidFloor)
{
    public static RingView Empty { get; } = new(0, [], 0);

    /// <summary>
    /// Per silo name, the incarnation (<c>SiloAddress.ToParsableString()</c>) whose coordinators the
    /// members of that name are. A coordinator's key names only its silo; a silo that died and came
    /// back under its name runs coordinators of the same keys, which must not take what was meant
    /// for the dead one's (<see cref="Coordination.TokenRing.Arrived"/>).
    /// </summary>
    public ImmutableDictionary<string, string> Incarnations
    {
        get => incarnations ?? ImmutableDictionary<string, string>.Empty; // absent in a view from a build before it
        init => incarnations = value;
    }

    [Id(3)]
    private readonly ImmutableDictionary<string, string>? incarnations;

    /// <summary>
    /// Whether <paramref name="coordinator"/>, of silo <paramref name="silo"/> (its key's, passed in
    /// so that the token's path allocates nothing) running as <paramref name="incarnation"/>, is a
    /// member of this view.
    /// </summary>
    public bool Has(string coordinator, string silo, string incarnation) =>
        Members.Contains(coordinator) && !NamesAnotherIncarnation(silo, incarnation);

    /// <summary>Whether this view names an incarnation of <paramref name="silo"/> other than <paramref name="incarnation"/>.</summary>
    public bool NamesAnotherIncarnation(string silo, string incarnation) =>
        Incarnations.TryGetValue(silo, out var named) && named != incarnation;

    /// <summary>The newer of two views.</summary>
    public static RingView Newer(RingView a, RingView b) => a.Epoch >= b.Epoch ? a : b;

    /// <summary>
    /// The coordinator after <paramref name="member"/>. A coordinator that is no longer in the view
    /// (its silo left) hands the token to the first member, so the token is never stranded with it.
    /// </summary>
    public string? Successor(string member)
    {
        if (Members.IsDefaultOrEmpty)
        {
            return null;
        }

        var at = Members.IndexOf(member);
        return at < 0 ? Members[0] : Members[(at + 1) % Members.Length];
    }
}
