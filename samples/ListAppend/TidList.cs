namespace ListAppend;

/// <summary>The state of a <see cref="ListActor"/>: the tids appended to it, in commit order.</summary>
[GenerateSerializer]
public sealed class TidList
{
    /// <summary>The tids, oldest first.</summary>
    [Id(0)]
    public List<long> Tids { get; set; } = [];
}
