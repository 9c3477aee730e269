using System.Runtime.ExceptionServices;

namespace Snapper.Grains;

/// <summary>
/// Caller side of every grain call (registered on silos and clients by <c>AddSnapper</c>): takes a
/// callee's execution info out of an <see cref="ExecutionInfoResponse"/>, gives it to the
/// <see cref="ExecutionInfoSink"/> of the <c>CallActor</c> that made the call, and throws the
/// callee's exception if it failed. It also keeps a transaction's root mark on the body's first
/// call only (<see cref="RootCall.BeforeSend"/>).
/// </summary>
internal sealed class ExecutionInfoCallFilter : IOutgoingGrainCallFilter
{
    public async Task Invoke(IOutgoingGrainCallContext context)
    {
        RootCall.BeforeSend();
        var sink = ExecutionInfoSink.Value; // read before the await: it belongs to this call's flow
        try
        {
            await context.Invoke();
        }
        finally
        {
            if (context.Response is ExecutionInfoResponse response)
            {
                sink?.Merge(response.Info);
                if (response.Failure is { } failure)
                {
                    ExceptionDispatchInfo.Throw(failure);
                }
            }
        }
    }
}
