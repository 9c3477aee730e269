using BenchmarkDotNet.Attributes;
using Snapper.Concurrency;

namespace Snapper.Benchmarks.Concurrency;

/// <summary>The uncontended lock paths every ACT takes on every actor it touches.</summary>
[MemoryDiagnoser]
public class WaitDieLockBenchmarks
{
    private static readonly DateTimeOffset Far = DateTimeOffset.MaxValue;
    private readonly WaitDieLock @lock = new();
    private long tid;

    [Benchmark(Description = "write lock: acquire + release")]
    public void WriteAcquireRelease()
    {
        var t = ++tid;
        _ = @lock.Acquire(t, LockMode.Write, Far, TimeProvider.System);
        @lock.Release(t);
    }

    [Benchmark(Description = "entrant (holds nothing yet) write lock: acquire + release")]
    public void EntrantAcquireRelease()
    {
        var t = ++tid;
        _ = @lock.Acquire(t, t, LockMode.Write, Far, TimeProvider.System, entrant: true);
        @lock.Release(t);
    }

    [Benchmark(Description = "two readers: acquire + release")]
    public void SharedReaders()
    {
        var a = ++tid;
        var b = ++tid;
        _ = @lock.Acquire(a, LockMode.Read, Far, TimeProvider.System);
        _ = @lock.Acquire(b, LockMode.Read, Far, TimeProvider.System);
        @lock.Release(a);
        @lock.Release(b);
    }

    [Benchmark(Description = "read, upgrade to write, release")]
    public void Upgrade()
    {
        var t = ++tid;
        _ = @lock.Acquire(t, LockMode.Read, Far, TimeProvider.System);
        _ = @lock.Acquire(t, LockMode.Write, Far, TimeProvider.System);
        @lock.Release(t);
    }
}
