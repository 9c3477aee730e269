namespace Snapper.LoadGen.Nemesis;

/// <summary>What <c>--nemesis</c> and <c>--nemesis-rate</c> asked for, for every mode of a run.</summary>
/// <param name="Faults">The faults, names of <see cref="NemesisFaults"/>.</param>
/// <param name="Rate">Deactivation and migration requests a second.</param>
/// <param name="Calls">The call-level faults shared with the embedded silos' filters, or null against a <c>--cluster</c>.</param>
/// <param name="Seed">Seeds the choice of actors (<c>--seed</c>).</param>
public sealed record NemesisSettings(IReadOnlyList<string> Faults, double Rate, CallFaults? Calls, int Seed)
{
    /// <summary>The requests to Orleans asked for, in the order they alternate: deactivate, migrate, or both.</summary>
    public IReadOnlyList<string> Requests { get; } = [.. NemesisFaults.FromAClient.Where(Faults.Contains)];
}
