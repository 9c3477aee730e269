namespace Snapper.Coordination;

/// <summary>NewPact at a coordinator: a PACT waiting for the token to join a batch.</summary>
internal sealed class PendingPact(ActorId root, AccessSet declared)
{
    public ActorId Root { get; } = root;

    public AccessSet Declared { get; } = declared;

    /// <summary>When it joined its coordinator's buffer to wait for the token.</summary>
    public DateTimeOffset Enqueued { get; set; }

    /// <summary>Completed with the PACT's context (tid, bid) once its batch is emitted.</summary>
    public TaskCompletionSource<TxnContext> Placed { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
}
