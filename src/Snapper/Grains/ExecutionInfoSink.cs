using Snapper.Protocol;

namespace Snapper.Grains;

/// <summary>
/// Where the execution info of the call under way goes: <c>CallActor</c> sets one before it makes
/// the call, and <see cref="ExecutionInfoCallFilter"/>, which runs in that call's async flow, puts
/// the callee's info into it. Its presence also tells the filter that a call carrying a
/// <see cref="TxnContext"/> was made through <c>CallActor</c>.
/// </summary>
internal static class ExecutionInfoSink
{
    private static readonly AsyncLocal<ExecutionInfo?> Current = new();

    /// <summary>Set while a PACT's <c>CallActor</c> makes its call: a PACT's callee reports no execution info.</summary>
    public static ExecutionInfo PactCall { get; } = new();

    /// <summary>The info of the call being made from here, or null outside <c>CallActor</c>.</summary>
    public static ExecutionInfo? Value
    {
        get => Current.Value;
        set => Current.Value = value;
    }
}
