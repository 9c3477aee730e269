using System.Globalization;

namespace Snapper.LoadGen.Measurement;

/// <summary>
/// The actors most often in the way of a mode's aborts, from the <see cref="AbortBlocker"/> each
/// concurrency abort carries: the table's "in the way" line and the JSON's <c>inTheWay</c>.
/// </summary>
/// <param name="Actor">The actor (<c>Type/key</c>), or <see cref="UnknownActor"/>.</param>
/// <param name="Aborts">The mode's aborted attempts that named it (<see cref="AbortBlockers"/>).</param>
/// <param name="Percent">Their share of all the mode's aborted attempts.</param>
public sealed record InTheWay(string Actor, long Aborts, double Percent)
{
    /// <summary>How many actors a mode lists.</summary>
    public const int Listed = 5;

    /// <summary>The name under which blockers that name a batch but no actor are counted (a PACT cascade, a batch the hybrid check met elsewhere).</summary>
    public const string UnknownActor = "(a batch, actor not known)";

    /// <summary>The name <paramref name="blocker"/> is counted under.</summary>
    public static string NameOf(AbortBlocker blocker)
    {
        ArgumentNullException.ThrowIfNull(blocker);
        return blocker.Actor.IsDefault ? UnknownActor : ShortName(blocker.Actor);
    }

    /// <summary>
    /// Whether another transaction causes an abort for <paramref name="reason"/>, so that it names
    /// its blocker: the reasons a retry may get past, and a wait that ran to its deadline.
    /// </summary>
    public static bool IsConcurrency(AbortReason reason) => ActOptions.IsRetryable(reason) || reason == AbortReason.Timeout;

    /// <summary>The <see cref="Listed"/> actors in <paramref name="byActor"/> with the most aborts, with their share of <paramref name="aborted"/>.</summary>
    public static IReadOnlyList<InTheWay> Top(IReadOnlyDictionary<string, long> byActor, long aborted)
    {
        ArgumentNullException.ThrowIfNull(byActor);
        return [.. byActor
            .OrderByDescending(kv => kv.Value)
            .ThenBy(kv => kv.Key, StringComparer.Ordinal)
            .Take(Listed)
            .Select(kv => new InTheWay(kv.Key, kv.Value, aborted > 0 ? 100.0 * kv.Value / aborted : 0))];
    }

    /// <inheritdoc />
    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Actor} {Percent:F1}%");

    // The interface's simple name: "SmallBank.IAccountActor/17" reads as "IAccountActor/17".
    private static string ShortName(ActorId actor) => $"{actor.Type[(actor.Type.LastIndexOf('.') + 1)..]}/{actor.Key}";
}
