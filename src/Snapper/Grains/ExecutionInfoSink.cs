using Snapper.Act;

namespace Snapper.Grains;

/// <summary>
/// Where the execution info of the call under way goes: <c>CallActor</c> sets one before it makes
/// the call, and <see cref="ExecutionInfoCallFilter"/>, which runs in that call's async flow, puts
/// the callee's info into it.
/// </summary>
internal static class ExecutionInfoSink
{
    private static readonly AsyncLocal<ExecutionInfo?> Current = new();

    /// <summary>The info of the call being made from here, or null outside <c>CallActor</c>.</summary>
    public static ExecutionInfo? Value
    {
        get => Current.Value;
        set => Current.Value = value;
    }
}
