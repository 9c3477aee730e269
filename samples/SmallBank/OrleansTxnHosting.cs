using Microsoft.Extensions.DependencyInjection;
using Orleans.Configuration;
using Orleans.Storage;

namespace SmallBank;

/// <summary>What a silo needs to serve <see cref="OrleansTxnAccount"/>: Orleans' transactions and their storage.</summary>
public static class OrleansTxnHosting
{
    /// <summary>The grain storage the accounts' transactional state is kept in.</summary>
    public const string StorageName = "smallbank-transactions";

    private const string InnerStorageName = "smallbank-transactions-memory";

    /// <summary>
    /// Turns on Orleans' transactions with in-memory storage whose writes take
    /// <paramref name="writeDelay"/> longer: LoadGen's <c>--log-delay-ms</c>, so the peer pays for
    /// slow storage as Snapper's loggers do. <paramref name="lockTimeout"/>, when given, sets both
    /// <see cref="TransactionalStateOptions.LockTimeout"/> (how long a group of transactions may
    /// hold an account's lock before Orleans breaks it) and
    /// <see cref="TransactionalStateOptions.LockAcquireTimeout"/> (how long one waits for it), as
    /// the Snapper paper cut them to 200 ms for its peer; absent, Orleans' defaults (8 s, 10 s) hold.
    /// </summary>
    public static ISiloBuilder AddOrleansTxnSmallBank(this ISiloBuilder silo, TimeSpan writeDelay, TimeSpan? lockTimeout = null)
    {
        ArgumentNullException.ThrowIfNull(silo);
        silo.UseTransactions();
        if (lockTimeout is { } timeout)
        {
            silo.Services.Configure<TransactionalStateOptions>(o => (o.LockTimeout, o.LockAcquireTimeout) = (timeout, timeout));
        }

        silo.AddMemoryGrainStorage(InnerStorageName);
        silo.Services.AddKeyedSingleton<IGrainStorage>(StorageName, (services, _) =>
        {
            var inner = services.GetRequiredKeyedService<IGrainStorage>(InnerStorageName);
            return writeDelay > TimeSpan.Zero ? new DelayedGrainStorage(inner, writeDelay) : inner;
        });
        return silo;
    }

    // Every write and clear waits the delay first, as a remote store's round trip would.
    private sealed class DelayedGrainStorage(IGrainStorage inner, TimeSpan delay) : IGrainStorage
    {
        public Task ReadStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState) => inner.ReadStateAsync(stateName, grainId, grainState);

        public async Task WriteStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState)
        {
            await Task.Delay(delay);
            await inner.WriteStateAsync(stateName, grainId, grainState);
        }

        public async Task ClearStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState)
        {
            await Task.Delay(delay);
            await inner.ClearStateAsync(stateName, grainId, grainState);
        }
    }
}
