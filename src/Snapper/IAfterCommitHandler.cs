namespace Snapper;

/// <summary>
/// Takes the after-commit actions of type <typeparamref name="TMessage"/> that transactional actors
/// register with <c>AfterCommit</c> (the transactional outbox): called once the transaction that
/// registered one has committed durably, never for one that aborted. Register it with
/// <c>AddSnapper(snapper =&gt; snapper.AddAfterCommitHandler&lt;TMessage, THandler&gt;())</c>.
/// </summary>
/// <typeparam name="TMessage">The message type: serializable by Orleans (<c>[GenerateSerializer]</c>).</typeparam>
/// <remarks>
/// <para><b>At least once.</b> An action is delivered until its handler returns without throwing,
/// and again after a crash or a failover if the silo died before it could note that: a handler
/// must drop repeats by <see cref="AfterCommitContext.Id"/> (a processed-ids table beside the
/// effect, an idempotency key at the service it calls, or an effect that is idempotent itself).</para>
/// <para>It runs on the silo that decided the transaction (the root's for an ACT, the batch
/// coordinator's for a PACT), outside any grain and outside the transaction, after the caller may
/// already have been answered. A throw, or running past <see cref="Configuration.SnapperOptions.AfterCommitAttemptTimeout"/>,
/// is logged, counted (<c>snapper.after_commit.attempts</c>, outcome <c>failed</c>) and tried again
/// after a growing backoff, without holding up other actions or transactions. An attempt past the
/// timeout is not stopped: the next may run beside it, so drop repeats atomically (an insert that
/// fails on a taken id, say).</para>
/// </remarks>
public interface IAfterCommitHandler<in TMessage>
{
    /// <summary>Carries out <paramref name="message"/>, or drops it if <paramref name="context"/>'s id was seen before.</summary>
    /// <param name="message">What the actor registered.</param>
    /// <param name="context">The action's stable id and where it came from.</param>
    /// <param name="cancellationToken">Signalled when the silo stops (the action stays owed, and is delivered after its restart).</param>
    Task HandleAsync(TMessage message, AfterCommitContext context, CancellationToken cancellationToken);
}
