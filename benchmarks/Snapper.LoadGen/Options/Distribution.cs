namespace Snapper.LoadGen.Options;

/// <summary>How a transaction's actors are chosen (<c>--dist</c>).</summary>
public enum Distribution
{
    /// <summary>Every actor equally likely.</summary>
    Uniform = 0,

    /// <summary>1% of the actors are hot and 75% of each transaction's actors come from them.</summary>
    Hotspot = 1,

    /// <summary>Zipf over the actors with exponent <c>--zipf</c>: key 0 is the hottest.</summary>
    Zipf = 2,
}
