namespace Snapper.LoadGen.Nemesis;

/// <summary>
/// The faults <c>--nemesis</c> names. <see cref="Deactivate"/> and <see cref="Migrate"/> are
/// requests any Orleans client may make (an operator's rebalancing does the same), so they also go
/// to a <c>--cluster</c>; <see cref="Delay"/> and <see cref="Timeout"/> are grain call filters and a
/// response timeout, which only this process's own silos can be given.
/// </summary>
public static class NemesisFaults
{
    /// <summary>Ask Orleans to deactivate random actors of the workload (<c>IGrainManagementExtension.DeactivateOnIdle</c>).</summary>
    public const string Deactivate = "deactivate";

    /// <summary>Ask Orleans to migrate random actors of the workload (<c>IGrainManagementExtension.MigrateOnIdle</c>).</summary>
    public const string Migrate = "migrate";

    /// <summary>Delay a share of grain calls before they are sent (<see cref="DelayingCallFilter"/>).</summary>
    public const string Delay = "delay";

    /// <summary>Lower the response timeout for the run and hold a share of answers past it (<see cref="LateAnswerFilter"/>).</summary>
    public const string Timeout = "timeout";

    /// <summary>Every fault, in the order help lists them.</summary>
    public static IReadOnlyList<string> All { get; } = [Deactivate, Migrate, Delay, Timeout];

    /// <summary>The faults a client of running silos can cause: requests to Orleans, no filters.</summary>
    public static IReadOnlyList<string> FromAClient { get; } = [Deactivate, Migrate];

    /// <summary>The default <c>--nemesis-rate</c>: deactivation and migration requests a second.</summary>
    public const double DefaultRate = 5;

    /// <summary>The most requests a second <c>--nemesis-rate</c> takes.</summary>
    public const double MaxRate = 10_000;

    /// <summary>Splits a comma list of faults; throws <see cref="FormatException"/> naming an unknown, empty or repeated entry.</summary>
    public static string[] Parse(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var faults = text.Split(',', StringSplitOptions.TrimEntries);
        var seen = new HashSet<string>(StringComparer.Ordinal);
        foreach (var fault in faults)
        {
            if (fault.Length == 0)
            {
                throw new FormatException($"'{text}' has an empty entry");
            }

            if (!All.Contains(fault, StringComparer.Ordinal))
            {
                throw new FormatException($"no fault '{fault}'; use {string.Join(", ", All)}");
            }

            if (!seen.Add(fault))
            {
                throw new FormatException($"fault '{fault}' is listed twice");
            }
        }

        return faults;
    }
}
