namespace Snapper.Tests.Infrastructure;

[GenerateSerializer]
public sealed class Counter
{
    [Id(0)]
    public int Value { get; set; }
}

/// <summary>A transactional actor whose steps a test can script and stop at gates.</summary>
public interface ITestActor : ITransactionalActor, IGrainWithStringKey
{
    Task<int> Read(TxnContext ctx);

    Task Add(TxnContext ctx, int delta);

    Task AddThenCall(TxnContext ctx, int delta, ActorId next, int nextDelta);

    Task AddThenCallThrowing(TxnContext ctx, int delta, ActorId next);

    Task AddThenSwallowNestedFailure(TxnContext ctx, int delta, ActorId next);

    Task AddThenThrow(TxnContext ctx, int delta, string message);

    Task<int> AddThenThrowForValue(TxnContext ctx, int delta, string message);

    Task<int> AddThenSwallowNestedValueFailure(TxnContext ctx, int delta, ActorId next);

    Task AddThenAbort(TxnContext ctx, int delta, AbortReason reason);

    Task<int> AddThenRead(TxnContext ctx, int delta);

    Task AddThenCallAborting(TxnContext ctx, int delta, ActorId next, AbortReason reason);

    [ResponseTimeout("00:01:00")] // outlasts a test's lowered default: held at its gates, it is only slow
    Task AddBetweenGates(TxnContext ctx, string before, string locked, string release);

    Task<int> ReadBetweenGates(TxnContext ctx, string locked, string release);

    Task ReadThenWrite(TxnContext ctx, string read, string write);

    Task<TxnContext> Leak(TxnContext ctx);

    Task CallWithContext(TxnContext ctx, TxnContext other, ActorId target);

    Task AddTwiceOn(TxnContext ctx, ActorId next);

    Task AddWaitThenCall(TxnContext ctx, string locked, string release, ActorId next);

    /// <summary>Adds 1 here, signals <paramref name="locked"/>, waits for <paramref name="release"/>, then adds 1 on <paramref name="first"/> and on <paramref name="second"/> at once.</summary>
    Task AddWaitThenCallBoth(TxnContext ctx, string locked, string release, ActorId first, ActorId second);

    Task CallThenWait(TxnContext ctx, ActorId next, string called, string release, bool thenThrow);

    /// <summary>Adds 1 on <paramref name="first"/>, signals <paramref name="called"/>, waits for <paramref name="release"/>, then answers what <paramref name="second"/>'s <see cref="AddThenRead"/> of 5 answers.</summary>
    Task<int> CallThenWaitThenCall(TxnContext ctx, ActorId first, string called, string release, ActorId second);

    Task CallAddBetweenGates(TxnContext ctx, ActorId next, string before, string locked, string release);

    /// <summary>Calls <paramref name="next"/>'s <see cref="CallAddBetweenGates"/> on to <paramref name="last"/>.</summary>
    Task CallOnwardAddBetweenGates(TxnContext ctx, ActorId next, ActorId last, string before, string locked, string release);

    Task AddOnTwiceBetweenGates(TxnContext ctx, ActorId next, string between, string release);

    Task CallTwoFirstThrows(TxnContext ctx, ActorId first, ActorId second);

    Task AddThenCallBackBetweenGates(TxnContext ctx, ActorId next, string called, string release);

    Task AddThenCallBackAfterGates(TxnContext ctx, ActorId back, string called, string release);

    Task AddBetweenGatesThenCallBack(TxnContext ctx, ActorId next, string added, string release);

    Task CallWithoutAwaiting(TxnContext ctx, ActorId next);

    Task<int> ReadThenAdd(TxnContext ctx, ActorId next, int delta);

    /// <summary>Adds <paramref name="delta"/>, then calls <paramref name="next"/>'s <see cref="AddThenCall"/> of <paramref name="delta"/> on to <paramref name="last"/>.</summary>
    Task AddThenCallOnward(TxnContext ctx, int delta, ActorId next, ActorId last);

    /// <summary>Adds <paramref name="delta"/> here, then returns what <paramref name="next"/>'s <see cref="AddThenRead"/> of <paramref name="nextDelta"/> answers.</summary>
    Task<int> AddThenCallForValue(TxnContext ctx, int delta, ActorId next, int nextDelta);

    /// <summary>Calls <paramref name="next"/> twice: <see cref="AddThenRead"/> of 1, then <see cref="AddThenReadBetweenGates"/> of 10; returns the second answer.</summary>
    Task<int> CallTwiceForSecondValue(TxnContext ctx, ActorId next, string locked, string release);

    /// <summary>Adds <paramref name="delta"/>, signals <paramref name="locked"/>, waits for <paramref name="release"/>, then answers the value.</summary>
    Task<int> AddThenReadBetweenGates(TxnContext ctx, int delta, string locked, string release);

    Task CopyPlus(TxnContext ctx, ActorId from, int plus, string? read, string? release);
}

public sealed class TestActor(Gates gates) : TransactionalActor<Counter>, ITestActor
{
    public async Task<int> Read(TxnContext ctx) => (await GetState(ctx, AccessMode.Read)).Value;

    public async Task Add(TxnContext ctx, int delta) => (await GetState(ctx, AccessMode.ReadWrite)).Value += delta;

    public async Task AddThenCall(TxnContext ctx, int delta, ActorId next, int nextDelta)
    {
        await Add(ctx, delta);
        await CallActor<ITestActor>(ctx, next, a => a.Add(ctx, nextDelta));
    }

    public async Task AddThenCallThrowing(TxnContext ctx, int delta, ActorId next)
    {
        await Add(ctx, delta);
        await CallActor<ITestActor>(ctx, next, a => a.AddThenThrow(ctx, delta, "nested boom"));
    }

    public async Task AddThenSwallowNestedFailure(TxnContext ctx, int delta, ActorId next)
    {
        await Add(ctx, delta);
        try
        {
            await CallActor<ITestActor>(ctx, next, a => a.AddThenThrow(ctx, delta, "swallowed boom"));
        }
        catch (InvalidOperationException)
        {
            // User code hides the failure; the transaction must abort all the same.
        }
    }

    public async Task AddThenThrow(TxnContext ctx, int delta, string message)
    {
        await Add(ctx, delta);
        throw new InvalidOperationException(message);
    }

    public async Task<int> AddThenThrowForValue(TxnContext ctx, int delta, string message)
    {
        await Add(ctx, delta);
        throw new InvalidOperationException(message);
    }

    // The nested call has a result: its failure must reach this code as the original exception.
    public async Task<int> AddThenSwallowNestedValueFailure(TxnContext ctx, int delta, ActorId next)
    {
        await Add(ctx, delta);
        try
        {
            return await CallActor<ITestActor, int>(ctx, next, a => a.AddThenThrowForValue(ctx, delta, "value boom"));
        }
        catch (InvalidOperationException)
        {
            return -1;
        }
    }

    public async Task<int> AddThenRead(TxnContext ctx, int delta)
    {
        await Add(ctx, delta);
        return await Read(ctx);
    }

    // User code that throws (or lets escape) an abort exception of any reason.
    public async Task AddThenAbort(TxnContext ctx, int delta, AbortReason reason)
    {
        await Add(ctx, delta);
        throw new TransactionAbortedException(reason, "thrown by the test actor's body");
    }

    public async Task AddThenCallAborting(TxnContext ctx, int delta, ActorId next, AbortReason reason)
    {
        await Add(ctx, delta);
        await CallActor<ITestActor>(ctx, next, a => a.AddThenAbort(ctx, delta, reason));
    }

    public async Task AddBetweenGates(TxnContext ctx, string before, string locked, string release)
    {
        await gates.Until(before);
        await Add(ctx, 1);
        gates.Signal(locked);
        await gates.Until(release);
    }

    public async Task<int> ReadBetweenGates(TxnContext ctx, string locked, string release)
    {
        var value = await Read(ctx);
        gates.Signal(locked);
        await gates.Until(release);
        return value;
    }

    public async Task ReadThenWrite(TxnContext ctx, string read, string write)
    {
        await Read(ctx);
        gates.Signal(read);
        await gates.Until(write);
        await Add(ctx, 1);
    }

    public Task<TxnContext> Leak(TxnContext ctx) => Task.FromResult(ctx);

    public Task CallWithContext(TxnContext ctx, TxnContext other, ActorId target) =>
        CallActor<ITestActor>(other, target, a => a.Add(other, 1));

    public async Task AddWaitThenCall(TxnContext ctx, string locked, string release, ActorId next)
    {
        await Add(ctx, 1);
        gates.Signal(locked);
        await gates.Until(release);
        await CallActor<ITestActor>(ctx, next, a => a.Add(ctx, 1));
    }

    public async Task AddWaitThenCallBoth(TxnContext ctx, string locked, string release, ActorId first, ActorId second)
    {
        await Add(ctx, 1);
        gates.Signal(locked);
        await gates.Until(release);
        await Task.WhenAll(
            CallActor<ITestActor>(ctx, first, a => a.Add(ctx, 1)),
            CallActor<ITestActor>(ctx, second, a => a.Add(ctx, 1)));
    }

    public async Task<int> CallThenWaitThenCall(TxnContext ctx, ActorId first, string called, string release, ActorId second)
    {
        await CallActor<ITestActor>(ctx, first, a => a.Add(ctx, 1));
        gates.Signal(called);
        await gates.Until(release);
        return await CallActor<ITestActor, int>(ctx, second, a => a.AddThenRead(ctx, 5));
    }

    public async Task CallThenWait(TxnContext ctx, ActorId next, string called, string release, bool thenThrow)
    {
        await CallActor<ITestActor>(ctx, next, a => a.Add(ctx, 1));
        gates.Signal(called);
        await gates.Until(release);
        if (thenThrow)
        {
            throw new InvalidOperationException("the PACT gives up after its call");
        }
    }

    public Task CallAddBetweenGates(TxnContext ctx, ActorId next, string before, string locked, string release) =>
        CallActor<ITestActor>(ctx, next, a => a.AddBetweenGates(ctx, before, locked, release));

    public Task CallOnwardAddBetweenGates(TxnContext ctx, ActorId next, ActorId last, string before, string locked, string release) =>
        CallActor<ITestActor>(ctx, next, a => a.CallAddBetweenGates(ctx, last, before, locked, release));

    public async Task AddOnTwiceBetweenGates(TxnContext ctx, ActorId next, string between, string release)
    {
        await CallActor<ITestActor>(ctx, next, a => a.Add(ctx, 1));
        gates.Signal(between);
        await gates.Until(release);
        await CallActor<ITestActor>(ctx, next, a => a.Add(ctx, 1));
    }

    /// <summary>Adds 1 here, then calls <paramref name="next"/>, which adds 1 and, between gates, calls back here to add 1 more.</summary>
    public async Task AddThenCallBackBetweenGates(TxnContext ctx, ActorId next, string called, string release)
    {
        await Add(ctx, 1);
        await CallActor<ITestActor>(ctx, next, a => a.AddThenCallBackAfterGates(ctx, Id, called, release));
    }

    /// <summary>Adds 1 here and waits between gates; then calls <paramref name="next"/>, which adds 1 and calls back here at once.</summary>
    public async Task AddBetweenGatesThenCallBack(TxnContext ctx, ActorId next, string added, string release)
    {
        await Add(ctx, 1);
        gates.Signal(added);
        await gates.Until(release);
        gates.Signal("call-back-now");
        await CallActor<ITestActor>(ctx, next, a => a.AddThenCallBackAfterGates(ctx, Id, "called-back", "call-back-now"));
    }

    public async Task AddThenCallBackAfterGates(TxnContext ctx, ActorId back, string called, string release)
    {
        await Add(ctx, 1);
        gates.Signal(called);
        await gates.Until(release);
        await CallActor<ITestActor>(ctx, back, a => a.Add(ctx, 1));
    }

    public async Task CallTwoFirstThrows(TxnContext ctx, ActorId first, ActorId second)
    {
        var failing = CallActor<ITestActor>(ctx, first, a => a.AddThenThrow(ctx, 1, "first call fails"));
        var slow = CallActor<ITestActor>(ctx, second, a => a.AddBetweenGates(ctx, "go", "second-locked", "second-release"));
        await failing; // throws, leaving the second call running
        await slow;
    }

    public async Task CallWithoutAwaiting(TxnContext ctx, ActorId next)
    {
        _ = CallActor<ITestActor>(ctx, next, a => a.AddBetweenGates(ctx, "go", "stray-locked", "stray-release"));
        await gates.Until("stray-locked"); // returns while the call it never awaits holds a lock
    }

    /// <summary>Reads this actor, then adds <paramref name="delta"/> on <paramref name="next"/>: a reader and one writer.</summary>
    public async Task AddThenCallOnward(TxnContext ctx, int delta, ActorId next, ActorId last)
    {
        await Add(ctx, delta);
        await CallActor<ITestActor>(ctx, next, a => a.AddThenCall(ctx, delta, last, delta));
    }

    public async Task<int> AddThenCallForValue(TxnContext ctx, int delta, ActorId next, int nextDelta)
    {
        await Add(ctx, delta);
        return await CallActor<ITestActor, int>(ctx, next, a => a.AddThenRead(ctx, nextDelta));
    }

    public async Task<int> CallTwiceForSecondValue(TxnContext ctx, ActorId next, string locked, string release)
    {
        await CallActor<ITestActor, int>(ctx, next, a => a.AddThenRead(ctx, 1));
        return await CallActor<ITestActor, int>(ctx, next, a => a.AddThenReadBetweenGates(ctx, 10, locked, release));
    }

    public async Task<int> AddThenReadBetweenGates(TxnContext ctx, int delta, string locked, string release)
    {
        await Add(ctx, delta);
        gates.Signal(locked);
        await gates.Until(release);
        return await Read(ctx);
    }

    public async Task<int> ReadThenAdd(TxnContext ctx, ActorId next, int delta)
    {
        var own = await Read(ctx);
        await CallActor<ITestActor>(ctx, next, a => a.Add(ctx, delta));
        return own;
    }

    /// <summary>Sets this actor to <paramref name="from"/>'s value plus <paramref name="plus"/>, with a pause between the read and the write when gates are named.</summary>
    public async Task CopyPlus(TxnContext ctx, ActorId from, int plus, string? read, string? release)
    {
        var value = await CallActor<ITestActor, int>(ctx, from, a => a.Read(ctx));
        if (read is not null && release is not null)
        {
            gates.Signal(read);
            await gates.Until(release);
        }

        (await GetState(ctx, AccessMode.ReadWrite)).Value = value + plus;
    }

    public async Task AddTwiceOn(TxnContext ctx, ActorId next)
    {
        await Add(ctx, 1);
        await CallActor<ITestActor>(ctx, next, a => a.Add(ctx, 1));
        await CallActor<ITestActor>(ctx, next, a => a.Add(ctx, 1));
    }
}

[GenerateSerializer]
public sealed class Journal
{
    [Id(0)]
    public List<long> Seen { get; set; } = [];
}

/// <summary>Records the tids of the transactions that ran on it, in the order they ran.</summary>
public interface IRecorderActor : ITransactionalActor, IGrainWithStringKey
{
    Task Record(TxnContext ctx);

    Task RecordEverywhere(TxnContext ctx, ActorId[] others);

    Task<List<long>> Seen(TxnContext ctx);
}

public sealed class RecorderActor : TransactionalActor<Journal>, IRecorderActor
{
    public async Task Record(TxnContext ctx) => (await GetState(ctx, AccessMode.ReadWrite)).Seen.Add(ctx.Tid);

    public async Task RecordEverywhere(TxnContext ctx, ActorId[] others)
    {
        await Record(ctx);
        await Task.WhenAll(others.Select(o => CallActor<IRecorderActor>(ctx, o, a => a.Record(ctx))));
    }

    public async Task<List<long>> Seen(TxnContext ctx) => [.. (await GetState(ctx, AccessMode.Read)).Seen];
}

/// <summary>A state Orleans' serializer cannot handle: it has no [GenerateSerializer].</summary>
public sealed class Unserializable
{
    public int Value { get; set; }
}

public interface IUnserializableActor : ITransactionalActor, IGrainWithStringKey
{
    Task Touch(TxnContext ctx);
}

public sealed class UnserializableActor : TransactionalActor<Unserializable>, IUnserializableActor
{
    public async Task Touch(TxnContext ctx) => await GetState(ctx, AccessMode.Read);
}
