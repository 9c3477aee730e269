using Orleans.Serialization.Invocation;
using Snapper.Protocol;

namespace Snapper.Grains;

/// <summary>
/// Callee → caller: the response of a call made within an ACT, with the callee's execution info
/// (participants, roles, hybrid bounds, commit dependencies, first failure) riding along; also the
/// root's answer to an ACT's first call when the ACT aborted (with empty info). The callee's
/// <see cref="TransactionalActor{TState}"/> call filter makes it; <see cref="ExecutionInfoCallFilter"/>
/// on the caller's side takes the info out and replaces it with a plain failed response if the
/// callee failed, which Orleans throws where the caller reads the result.
/// </summary>
/// <remarks>
/// <see cref="Exception"/> reads as null on purpose (as Orleans' own transaction response does): a
/// failed call must still complete as a response, so the caller's filter sees the info, and the
/// exception is not thrown and caught again by every invoker stage on the way.
/// <see cref="GetResult{T}"/> and <see cref="Result"/> still throw the callee's exception, so a
/// caller without the filter still sees it.
/// </remarks>
[GenerateSerializer]
internal sealed class ExecutionInfoResponse : Response
{
    [Id(0)]
    private Response inner = Completed;

    [Id(1)]
    public ExecutionInfo Info { get; private set; } = new();

    public static ExecutionInfoResponse Create(Response inner, ExecutionInfo info) => new() { inner = inner, Info = info };

    /// <summary>
    /// Whether the caller of <paramref name="context"/>'s method reads a result: Orleans then throws
    /// a failed response where it reads it. For a method without one it reads nothing, so a failure
    /// must be thrown where the response arrives.
    /// </summary>
    public static bool ReadsResult(IGrainCallContext context) => context.InterfaceMethod?.ReturnType is { IsGenericType: true };

    /// <summary>The callee's exception, or null if the call returned.</summary>
    public Exception? Failure => inner.Exception;

    public override object? Result
    {
        get => inner.Result;
        set => inner.Result = value;
    }

    public override Exception? Exception
    {
        get => null;
        set => inner.Exception = value;
    }

    [return: System.Diagnostics.CodeAnalysis.MaybeNull]
    public override T GetResult<T>() => inner.GetResult<T>();

    public override void Dispose() => inner.Dispose();

    public override string ToString() => inner.ToString();
}
