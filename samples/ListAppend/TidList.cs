namespace ListAppend;

/// <summary>The state of a <see cref="ListActor"/>: the tids appended to it, in commit order.</summary>
public sealed class TidList
{
    /// <summary>The tids, oldest first.</summary>
    public List<long> Tids { get; set; } = [];
}
