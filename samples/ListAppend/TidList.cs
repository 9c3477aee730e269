using System.Text.Json.Serialization;

using Snapper;

namespace ListAppend;

/// <summary>
/// The state of a <see cref="ListActor"/>: the tids appended to it, in commit order. Lists only grow,
/// and nothing a transaction does may cost O(list):
/// <list type="bullet">
/// <item>a write is logged as the tids it appended (<see cref="IDeltaState{TSelf, TDelta}"/>), not
/// the whole list;</item>
/// <item>the copy a writing transaction works on shares every full chunk of
/// <see cref="ChunkSize"/> tids with the state it was copied from (a <see cref="TidChunk"/> is
/// <c>[Immutable]</c>, which Orleans' copier does not copy) and copies only the tail.</item>
/// </list>
/// </summary>
[GenerateSerializer]
public sealed class TidList : IDeltaState<TidList, long[]>
{
    /// <summary>Tids per full chunk.</summary>
    public const int ChunkSize = 1024;

    /// <summary>The full chunks, oldest first.</summary>
    [Id(0)]
    public List<TidChunk> Chunks { get; set; } = [];

    /// <summary>The newest tids, fewer than <see cref="ChunkSize"/>, oldest first.</summary>
    [Id(1)]
    public List<long> Tail { get; set; } = [];

    /// <summary>How many tids the list holds.</summary>
    [JsonIgnore]
    public int Count => (Chunks.Count * ChunkSize) + Tail.Count;

    /// <summary>The newest tid, or null for an empty list.</summary>
    [JsonIgnore]
    public long? Last => Tail.Count > 0 ? Tail[^1] : Chunks.Count > 0 ? Chunks[^1].Tids[^1] : null;

    /// <summary>Appends <paramref name="tid"/>.</summary>
    public void Add(long tid)
    {
        Tail.Add(tid);
        if (Tail.Count == ChunkSize)
        {
            Chunks.Add(new TidChunk { Tids = [.. Tail] });
            Tail.Clear();
        }
    }

    /// <summary>Every tid, oldest first, in a new list.</summary>
    public List<long> ToList()
    {
        var all = new List<long>(Count);
        foreach (var chunk in Chunks)
        {
            all.AddRange(chunk.Tids);
        }

        all.AddRange(Tail);
        return all;
    }

    /// <inheritdoc />
    public long[] DeltaFrom(TidList before)
    {
        ArgumentNullException.ThrowIfNull(before);
        var from = before.Count;
        var appended = new long[Count - from];
        for (var i = 0; i < appended.Length; i++)
        {
            appended[i] = At(from + i);
        }

        return appended;
    }

    /// <inheritdoc />
    public void Apply(long[] delta)
    {
        ArgumentNullException.ThrowIfNull(delta);
        foreach (var tid in delta)
        {
            Add(tid);
        }
    }

    private long At(int index)
    {
        var inChunks = Chunks.Count * ChunkSize;
        return index < inChunks ? Chunks[index / ChunkSize].Tids[index % ChunkSize] : Tail[index - inChunks];
    }
}

/// <summary><see cref="TidList.ChunkSize"/> tids of a <see cref="TidList"/>, never changed once full: shared by every copy.</summary>
[GenerateSerializer, Immutable]
public sealed class TidChunk
{
    /// <summary>The tids, oldest first.</summary>
    [Id(0)]
    public long[] Tids { get; init; } = [];
}
