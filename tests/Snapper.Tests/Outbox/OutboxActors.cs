using System.Collections.Concurrent;

namespace Snapper.Tests.Outbox;

/// <summary>The after-commit message the tests' actors register.</summary>
[GenerateSerializer, Immutable]
public sealed record Notice([property: Id(0)] string Text);

/// <summary>A message type no handler is registered for.</summary>
[GenerateSerializer, Immutable]
public sealed record Unhandled([property: Id(0)] string Text);

[GenerateSerializer]
public sealed class Tally
{
    [Id(0)]
    public int Value { get; set; }
}

/// <summary>An actor whose transactions register after-commit actions, as an application's would.</summary>
public interface INotifierActor : ITransactionalActor, IGrainWithStringKey
{
    /// <summary>Registers <paramref name="text"/>, writing the state too if <paramref name="write"/>.</summary>
    Task Notify(TxnContext ctx, string text, bool write);

    /// <summary>Registers <paramref name="text"/>, writes, calls <paramref name="next"/> to register <paramref name="nextText"/>, which calls back here to register <paramref name="backText"/>.</summary>
    Task NotifyThenCallBack(TxnContext ctx, string text, ActorId next, string nextText, string backText);

    /// <summary>Registers <paramref name="text"/> here and on <paramref name="next"/> and on <paramref name="other"/>, the two calls in parallel.</summary>
    Task NotifyInParallel(TxnContext ctx, string text, ActorId next, ActorId other);

    /// <summary>Registers <paramref name="text"/>, writes, then throws: the transaction aborts.</summary>
    Task NotifyThenThrow(TxnContext ctx, string text);

    /// <summary>Calls <paramref name="next"/>, which registers <paramref name="text"/> and writes, then throws here: the transaction aborts after the callee's part ended.</summary>
    Task CallThenThrow(TxnContext ctx, ActorId next, string text);

    /// <summary>Registers a message no handler takes.</summary>
    Task NotifyUnhandled(TxnContext ctx);

    /// <summary>Calls back into <paramref name="caller"/>, which registers <paramref name="text"/>.</summary>
    Task NotifyBack(TxnContext ctx, ActorId caller, string text);

    /// <summary>Reads, registering nothing.</summary>
    Task<int> Read(TxnContext ctx);

    /// <summary>Returns at once, leaving a task that registers <paramref name="text"/> after its call answered.</summary>
    Task NotifyLater(TxnContext ctx, string text);

    /// <summary>Calls <paramref name="next"/>'s <see cref="NotifyLater"/>, then keeps the transaction running a while.</summary>
    Task CallLaterThenWait(TxnContext ctx, ActorId next, string text);
}

public sealed class NotifierActor(Deliveries deliveries) : TransactionalActor<Tally>, INotifierActor
{
    public async Task CallLaterThenWait(TxnContext ctx, ActorId next, string text)
    {
        await CallActor<INotifierActor>(ctx, next, a => a.NotifyLater(ctx, text));
        await deliveries.Stray.Task.WaitAsync(TimeSpan.FromSeconds(10)); // the callee's record stays while this runs
    }

    public async Task NotifyLater(TxnContext ctx, string text)
    {
        (await GetState(ctx, AccessMode.ReadWrite)).Value++;
        _ = Later();

        async Task Later()
        {
            await Task.Delay(200); // back on this activation, after the call answered
            try
            {
                AfterCommit(ctx, new Notice(text));
            }
            catch (Exception e)
            {
                deliveries.Stray.TrySetResult(e);
                return;
            }

            deliveries.Stray.TrySetResult(null);
        }
    }

    public async Task Notify(TxnContext ctx, string text, bool write)
    {
        var state = await GetState(ctx, write ? AccessMode.ReadWrite : AccessMode.Read);
        if (write)
        {
            state.Value++;
        }

        AfterCommit(ctx, new Notice(text));
    }

    public async Task NotifyThenCallBack(TxnContext ctx, string text, ActorId next, string nextText, string backText)
    {
        (await GetState(ctx, AccessMode.ReadWrite)).Value++;
        AfterCommit(ctx, new Notice(text));
        await CallActor<INotifierActor>(ctx, next, a => a.Notify(ctx, nextText, true));
        await CallActor<INotifierActor>(ctx, next, a => a.NotifyBack(ctx, Id, backText));
    }

    public async Task NotifyInParallel(TxnContext ctx, string text, ActorId next, ActorId other)
    {
        AfterCommit(ctx, new Notice(text));
        await Task.WhenAll(
            CallActor<INotifierActor>(ctx, next, a => a.Notify(ctx, $"{text}@{next.Key}", true)),
            CallActor<INotifierActor>(ctx, other, a => a.Notify(ctx, $"{text}@{other.Key}", false)));
    }

    public async Task NotifyThenThrow(TxnContext ctx, string text)
    {
        (await GetState(ctx, AccessMode.ReadWrite)).Value++;
        AfterCommit(ctx, new Notice(text));
        throw new InvalidOperationException("the body fails after registering its action");
    }

    public async Task CallThenThrow(TxnContext ctx, ActorId next, string text)
    {
        await CallActor<INotifierActor>(ctx, next, a => a.Notify(ctx, text, true));
        throw new InvalidOperationException("the body fails after its callee registered an action");
    }

    public Task NotifyUnhandled(TxnContext ctx)
    {
        AfterCommit(ctx, new Unhandled("nobody takes this"));
        return Task.CompletedTask;
    }

    public async Task<int> Read(TxnContext ctx) => (await GetState(ctx, AccessMode.Read)).Value;

    // Called back from the actor this one called: registers on the caller, already in the transaction.
    public Task NotifyBack(TxnContext ctx, ActorId caller, string text) =>
        CallActor<INotifierActor>(ctx, caller, a => a.Notify(ctx, text, true));
}

/// <summary>What the tests' handler took: every delivery, in order, shared by the silos of a test.</summary>
public sealed class Deliveries
{
    private readonly ConcurrentQueue<(AfterCommitContext Context, Notice Notice)> taken = new();
    private int failuresLeft;

    /// <summary>Attempts to refuse before handling (each throws).</summary>
    public void FailNext(int attempts) => Volatile.Write(ref failuresLeft, attempts);

    /// <summary>While set, the handler waits for it (or its cancellation) before it takes anything.</summary>
    public TaskCompletionSource? Hold { get; set; }

    /// <summary>What a registration after its call answered met (null: nothing).</summary>
    public TaskCompletionSource<Exception?> Stray { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>If set, <see cref="Hold"/> holds the handler only on the silo of this name.</summary>
    public string? HoldOn { get; set; }

    public IReadOnlyList<(AfterCommitContext Context, Notice Notice)> Taken => [.. taken];

    public IEnumerable<string> Texts => Taken.Select(t => t.Notice.Text);

    public int Attempts;

    internal async Task Take(Notice notice, AfterCommitContext context, string silo, CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref Attempts);
        if (Hold is { } hold && (HoldOn is null || HoldOn == silo))
        {
            await hold.Task.WaitAsync(cancellationToken);
        }

        if (Interlocked.Decrement(ref failuresLeft) >= 0)
        {
            throw new InvalidOperationException($"the notification service refused {context.Id} (attempt {context.Attempt})");
        }

        taken.Enqueue((context, notice));
    }
}

public sealed class NoticeHandler(Deliveries deliveries, ILocalSiloDetails silo) : IAfterCommitHandler<Notice>
{
    public Task HandleAsync(Notice message, AfterCommitContext context, CancellationToken cancellationToken) =>
        deliveries.Take(message, context, silo.Name, cancellationToken);
}
