namespace Snapper.Coordination;

/// <summary>
/// The token's prevBid per actor (<see cref="BatchToken.PrevBid"/>): a dictionary, sent across
/// silos in a compact form (<see cref="PrevBidsConverter"/>).
/// </summary>
/// <remarks>
/// The token crosses silos several hundred times a second under load, carrying an entry for every
/// actor of a batch still in flight (some 700 for SmallBank on two silos). As a plain dictionary
/// each entry spelled out its actor's interface name, so most of the token was the same few names
/// again; here each name is written once.
/// </remarks>
internal sealed class PrevBids : Dictionary<ActorId, long>
{
    public PrevBids()
    {
    }

    public PrevBids(int capacity)
        : base(capacity)
    {
    }
}

/// <summary>How <see cref="PrevBids"/> travels: each actor interface once, then per entry its index, key and bid.</summary>
[GenerateSerializer]
internal struct PrevBidsSurrogate
{
    [Id(0)]
    public string[] Types;

    [Id(1)]
    public int[] TypeOf;

    [Id(2)]
    public string[] Keys;

    [Id(3)]
    public long[] Bids;
}

/// <summary>Orleans' converter between <see cref="PrevBids"/> and <see cref="PrevBidsSurrogate"/>.</summary>
[RegisterConverter]
internal sealed class PrevBidsConverter : IConverter<PrevBids, PrevBidsSurrogate>
{
    public PrevBidsSurrogate ConvertToSurrogate(in PrevBids value)
    {
        var types = new List<string>(2);
        var typeOf = new int[value.Count];
        var keys = new string[value.Count];
        var bids = new long[value.Count];
        var i = 0;
        foreach (var (actor, bid) in value)
        {
            var type = types.IndexOf(actor.Type); // a handful of interfaces at most
            if (type < 0)
            {
                type = types.Count;
                types.Add(actor.Type);
            }

            (typeOf[i], keys[i], bids[i]) = (type, actor.Key, bid);
            i++;
        }

        return new PrevBidsSurrogate { Types = [.. types], TypeOf = typeOf, Keys = keys, Bids = bids };
    }

    public PrevBids ConvertFromSurrogate(in PrevBidsSurrogate surrogate)
    {
        var map = new PrevBids(surrogate.Keys.Length);
        for (var i = 0; i < surrogate.Keys.Length; i++)
        {
            map.Add(ActorId.FromParts(surrogate.Types[surrogate.TypeOf[i]], surrogate.Keys[i]), surrogate.Bids[i]);
        }

        return map;
    }
}
