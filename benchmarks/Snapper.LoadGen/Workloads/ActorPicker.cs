using Snapper.LoadGen.Options;

namespace Snapper.LoadGen.Workloads;

/// <summary>
/// Chooses the actors of one transaction: <c>keys.Length</c> distinct keys in [0, actors), the
/// first one debited, the others receiving. Stateless and shared by all loops: every draw comes
/// from the calling loop's seeded <see cref="Random"/>, so a loop's sequence of transactions is
/// fixed by the seed and identical in every mode.
/// </summary>
public sealed class ActorPicker
{
    /// <summary>Share of the actors that are hot under <see cref="Distribution.Hotspot"/>.</summary>
    public const double HotActorShare = 0.01;

    /// <summary>Share of each transaction's actors drawn from the hot set under <see cref="Distribution.Hotspot"/>.</summary>
    public const double HotAccessShare = 0.75;

    // A skewed sampler can keep returning keys already picked (Zipf with a large s on few actors).
    // Past this many draws per transaction the rest are filled uniformly so a pick always ends.
    private const int MaxDrawsPerKey = 64;

    private readonly IKeySampler main;
    private readonly IKeySampler? cold;
    private readonly int hotPerTransaction;

    private ActorPicker(int actors, int transactionSize, IKeySampler main, IKeySampler? cold, int hotPerTransaction)
    {
        Actors = actors;
        TransactionSize = transactionSize;
        this.main = main;
        this.cold = cold;
        this.hotPerTransaction = hotPerTransaction;
    }

    /// <summary>Number of actors keys are drawn from.</summary>
    public int Actors { get; }

    /// <summary>Keys per transaction.</summary>
    public int TransactionSize { get; }

    /// <summary>The hot actors under <see cref="Distribution.Hotspot"/> are keys 0 to HotActors-1; 0 otherwise.</summary>
    public int HotActors { get; private init; }

    /// <summary>The picker for a distribution over <paramref name="actors"/> actors.</summary>
    public static ActorPicker Create(Distribution distribution, int actors, int transactionSize, double zipfExponent = 1.0)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(actors, 1);
        ArgumentOutOfRangeException.ThrowIfLessThan(transactionSize, 1);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(transactionSize, actors);
        switch (distribution)
        {
            case Distribution.Uniform:
                return new ActorPicker(actors, transactionSize, new UniformSampler(0, actors), null, 0);

            case Distribution.Zipf:
                return new ActorPicker(actors, transactionSize, new ZipfSampler(zipfExponent, actors), null, 0);

            case Distribution.Hotspot:
                // At least one hot actor; with very few actors the hot set cannot supply 75% of a
                // transaction's distinct actors, so the hot share is capped by the hot set's size
                // and the cold set must be able to supply the rest.
                var hot = Math.Max(1, (int)Math.Round(actors * HotActorShare));
                var hotPerTransaction = Math.Min((int)Math.Round(transactionSize * HotAccessShare), hot);
                hotPerTransaction = Math.Max(hotPerTransaction, transactionSize - (actors - hot));
                return new ActorPicker(actors, transactionSize, new UniformSampler(0, hot), actors > hot ? new UniformSampler(hot, actors - hot) : null, hotPerTransaction)
                {
                    HotActors = hot,
                };

            default:
                throw new ArgumentOutOfRangeException(nameof(distribution), distribution, "Unknown distribution.");
        }
    }

    /// <summary>The picker <paramref name="options"/> describe.</summary>
    public static ActorPicker Create(LoadGenOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        return Create(options.Dist, options.Actors, options.TxnSize, options.Zipf);
    }

    /// <summary>Fills <paramref name="keys"/> (length <see cref="TransactionSize"/>) with distinct keys in random order; keys[0] is debited.</summary>
    public void Pick(Random random, Span<int> keys)
    {
        ArgumentNullException.ThrowIfNull(random);
        if (keys.Length != TransactionSize)
        {
            throw new ArgumentException($"Expected room for {TransactionSize} keys, got {keys.Length}.", nameof(keys));
        }

        if (cold is null)
        {
            Fill(random, keys, 0, keys.Length, main);
        }
        else
        {
            Fill(random, keys, 0, hotPerTransaction, main);
            Fill(random, keys, hotPerTransaction, keys.Length, cold);
        }

        // The debited actor must be a uniformly random member of the set. Drawn first, it would
        // be more often hot than the recipients (which must differ from it): a hot account would
        // pay out more than it receives, drain, and turn the run into "insufficient funds"
        // aborts. Shuffled, every member pays (size-1) with chance 1/size and receives 1
        // otherwise, so no account drifts.
        for (var i = keys.Length - 1; i > 0; i--)
        {
            var j = random.Next(i + 1);
            (keys[i], keys[j]) = (keys[j], keys[i]);
        }
    }

    private void Fill(Random random, Span<int> keys, int from, int to, IKeySampler sampler)
    {
        for (var i = from; i < to; i++)
        {
            var key = sampler.Next(random);
            var draws = 1;
            while (keys[..i].Contains(key))
            {
                key = draws++ < MaxDrawsPerKey ? sampler.Next(random) : Fallback(random, keys[..i]);
            }

            keys[i] = key;
        }
    }

    // Uniform over the keys not yet taken, by rejection (terminates: fewer keys are taken than exist).
    private int Fallback(Random random, ReadOnlySpan<int> taken)
    {
        int key;
        do
        {
            key = random.Next(Actors);
        }
        while (taken.Contains(key));
        return key;
    }
}
