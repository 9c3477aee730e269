using Snapper.Logging;
using Snapper.Pact;

namespace Snapper.Coordination;

/// <summary>
/// One coordinator of the ring (Snapper §4.2.1–4.2.2). It buffers the PACTs sent to it; when the
/// token arrives it puts all of them into one batch (bid = first tid), cuts one sub-batch per actor
/// with that actor's prevBid from the token, passes the token on at once, then logs BatchInfo and
/// sends the BatchMsgs. Commit and abort are the ring's (<see cref="PactRing"/>), which knows the
/// global bid order.
/// </summary>
internal sealed class PactCoordinator(int index, PactRing ring, Logger? logger)
{
    private readonly Turns turns = new();

    public int Index { get; } = index;

    /// <summary>PACTs waiting for the token. Guarded by the ring's lock.</summary>
    public List<PendingPact> Buffer { get; set; } = [];

    public Logger? Logger { get; } = logger;

    /// <summary>The token arrives: handled in this coordinator's own turn, never inline.</summary>
    public void Receive() => _ = Task.Factory.StartNew(() => turns.Run(OnToken), CancellationToken.None, TaskCreationOptions.DenyChildAttach, TaskScheduler.Default);

    private void OnToken()
    {
        var formed = ring.FormBatch(this);
        if (formed is { } batch)
        {
            _ = Emit(batch);
        }
    }

    private async Task Emit(FormedBatch formed)
    {
        var batch = formed.Batch;
        try
        {
            if (Logger is not null)
            {
                // Write-ahead: the batch's participants are durable before any BatchMsg is sent.
                await Logger.Append(new BatchInfoRecord(batch.Bid, Index, batch.Participants));
            }
        }
        catch (Exception e)
        {
            var failure = new TransactionAbortedException(AbortReason.Failure, $"coordinator {Index} could not log BatchInfo of batch {batch.Bid}: {e.Message}", e);
            foreach (var pact in formed.Pacts)
            {
                pact.Placed.TrySetException(failure);
            }

            ring.Abort(batch.Bid, 0, failure);
            return;
        }

        foreach (var sub in formed.SubBatches)
        {
            ring.Send(sub.Actor, p => p.OnBatch(sub.Batch));
        }

        for (var i = 0; i < formed.Pacts.Length; i++)
        {
            formed.Pacts[i].Placed.TrySetResult(formed.Contexts[i]);
        }
    }
}
