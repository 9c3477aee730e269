namespace TpcC.Loading;

/// <summary>What <see cref="TpcCLoader"/> loaded: how many actors, in how long.</summary>
public sealed record TpcCLoadResult(int Actors, TimeSpan Elapsed);
