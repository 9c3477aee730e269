using Microsoft.Extensions.DependencyInjection;
using System.Runtime.ExceptionServices;
using Orleans.Serialization.Invocation;
using Snapper.Protocol;

namespace Snapper.Grains;

/// <summary>
/// Caller side of every grain call (registered on silos and clients by <c>AddSnapper</c>): takes a
/// callee's execution info out of an <see cref="ExecutionInfoResponse"/>, gives it to the
/// <see cref="ExecutionInfoSink"/> of the <c>CallActor</c> that made the call, and hands the
/// callee's exception on if it failed (as a failed response, which Orleans throws where the result
/// is read, or thrown here for a method without a result). It also refuses a call that carries a <see cref="TxnContext"/>
/// but is neither its transaction's first call (made once, with the start context) nor made
/// through <c>CallActor</c>: a context kept past its transaction, or a call that would bypass Snapper.
/// </summary>
internal sealed class ExecutionInfoCallFilter(IServiceProvider services) : IOutgoingGrainCallFilter
{
    // Resolved at first use: the grain factory behind it is built with this filter.
    private ActorResolver? actors;

    public Task Invoke(IOutgoingGrainCallContext context)
    {
        var sink = ExecutionInfoSink.Value; // read before any await: it belongs to this call's flow
        if (sink is null)
        {
            if (context.Request.GetArgumentCount() == 0 || context.Request.GetArgument(0) is not TxnContext ctx)
            {
                return context.Invoke(); // no transaction: protocol messages, plain calls
            }

            if (!ctx.Start)
            {
                throw new SnapperException(
                    $"A call to {context.InterfaceMethod?.Name ?? "an actor"} was given the TxnContext of {ctx}, but it is neither that transaction's first call nor made through CallActor: " +
                    "the transaction has already finished, or the call bypasses Snapper. Pass a TxnContext only in the body of RunAct/RunPact (one call, on the first actor) and through CallActor.");
            }

            if (!ctx.TryMarkSent())
            {
                throw new SnapperException(
                    $"The body of transaction {ctx.Tid} made a second call with its TxnContext ({context.InterfaceMethod?.Name}): a RunAct or RunPact body makes exactly one call, on its first actor, which calls the others through CallActor.");
            }

            return InvokeStart(context, ctx);
        }

        return InvokeAndTakeInfo(context, sink);
    }

    // A transaction's first call, from its body. A start placed as it is sent takes in the actors
    // the call's arguments name.
    private Task InvokeStart(IOutgoingGrainCallContext context, TxnContext start) =>
        start.Placement is StartPlacement placement ? PlaceAndInvoke(context, placement, start) : InvokeAndTakeInfo(context, sink: null, start);

    private async Task PlaceAndInvoke(IOutgoingGrainCallContext context, StartPlacement placement, TxnContext start)
    {
        context.Request.SetArgument(0, await placement.Place(context.Request));
        await InvokeAndTakeInfo(context, sink: null, start);
    }

    // A start's call answered with no failure means its transaction committed (its root answers
    // only then), which the client reads to tell the body's own exceptions after it from the
    // transaction's (SnapperClient): marked on the start context.
    private async Task InvokeAndTakeInfo(IOutgoingGrainCallContext context, ExecutionInfo? sink, TxnContext? start = null)
    {
        await context.Invoke();
        if (context.Response is PendingPactResponse pending)
        {
            await Settle(context, pending);
        }
        else if (context.Response is ExecutionInfoResponse response)
        {
            if (sink is not null && !ReferenceEquals(sink, ExecutionInfoSink.PactCall))
            {
                sink.Merge(response.Info);
            }

            if (response.Failure is { } failure)
            {
                if (ExecutionInfoResponse.ReadsResult(context))
                {
                    // Not thrown here, where every invoker stage above this filter would catch it
                    // and throw it again: as the plain response, Orleans throws it once, where the
                    // caller reads the result.
                    context.Response = Response.FromException(failure);
                }
                else
                {
                    // A method without a result: Orleans reads none, so the failure must be thrown.
                    ExceptionDispatchInfo.Throw(failure);
                }
            }
        }

        if (start is not null && context.Response?.Exception is null)
        {
            start.MarkCommitted();
        }
    }

    // A PACT's root answered before its batch was decided (its activation was going): its next
    // activation is asked until one answers, and the caller gets the root's answer or the abort.
    private async Task Settle(IOutgoingGrainCallContext context, PendingPactResponse pending)
    {
        actors ??= services.GetRequiredService<ActorResolver>();
        TransactionAbortedException? aborted;
        while (true)
        {
            try
            {
                aborted = await actors.Participant(pending.Root).AwaitPact(pending.Tid, pending.Bid, pending.Coordinator);
                break;
            }
            catch (ActorMovingException)
            {
                // That activation went too: the next one is asked.
            }
        }

        if (aborted is null)
        {
            context.Response = pending.Inner;
        }
        else if (ExecutionInfoResponse.ReadsResult(context))
        {
            context.Response = Response.FromException(aborted);
        }
        else
        {
            ExceptionDispatchInfo.Throw(aborted);
        }
    }
}
