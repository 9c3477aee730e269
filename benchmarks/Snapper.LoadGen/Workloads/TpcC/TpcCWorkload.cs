using Microsoft.Extensions.Logging;
using Snapper.LoadGen.Options;
using TpcC;
using TpcC.Actors;
using TpcC.Client;
using TpcC.Consistency;
using TpcC.Generation;
using TpcC.Loading;
using TpcC.Transactions;

namespace Snapper.LoadGen.Workloads.TpcC;

/// <summary>
/// TPC-C in modes pact, act and hybrid (each transaction a PACT with probability pact-percent,
/// else an ACT, on the same actors at the same time). Each mode gets its own database, named after
/// the mode and loaded identically, so the modes start from the same data, never share an actor
/// and are checked on their own. A transaction's input is drawn from a <see cref="Random"/> seeded
/// by the keys the load driver picked for it: those come from the loop's seeded Random, so a loop
/// issues the same TPC-C inputs in every mode and every run.
/// </summary>
public sealed class TpcCWorkload : IWorkloadActors
{
    private readonly ISnapperClient client;
    private readonly TpcCInputGenerator generator;
    private readonly Dictionary<string, TpcCClient> clients = new(StringComparer.Ordinal);
    private readonly object gate = new();
    private readonly int pactPercent;

    /// <summary>The workload on databases of size <paramref name="config"/>.</summary>
    /// <param name="client">Issues the transactions.</param>
    /// <param name="config">The size and partitioning of every mode's database.</param>
    /// <param name="pactPercent">Hybrid: the percentage of transactions issued as PACTs, the rest as ACTs.</param>
    public TpcCWorkload(ISnapperClient client, TpcCConfig config, int pactPercent = 90)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(config);
        ArgumentOutOfRangeException.ThrowIfLessThan(pactPercent, 0);
        ArgumentOutOfRangeException.ThrowIfGreaterThan(pactPercent, 100);
        config.Validate();
        this.client = client;
        this.pactPercent = pactPercent;
        Config = config;
        generator = new TpcCInputGenerator(config);
    }

    /// <summary>The size and partitioning of every mode's database.</summary>
    public TpcCConfig Config { get; }

    /// <summary>What each issued transaction was and how it ended, for <see cref="TpcCMixRecorder.Summarize"/>.</summary>
    public TpcCMixRecorder Mix { get; } = new();

    /// <summary>The modes TPC-C runs in.</summary>
    public static IReadOnlyList<string> Modes { get; } = [ModeNames.Pact, ModeNames.Act, ModeNames.Hybrid];

    /// <summary>
    /// The load generator's database for <c>--warehouses</c> <paramref name="warehouses"/>
    /// (<see cref="TpcCConfig.Benchmark"/>: 300 customers per district, 10,000 items).
    /// </summary>
    public static TpcCConfig DefaultConfig(int warehouses) => TpcCConfig.Benchmark(warehouses);

    /// <summary>The standard mix (TPC-C §5.2.3) in percent, or NewOrder only.</summary>
    public static IReadOnlyList<(TpcCTransactionType Type, int Percent)> MixPercentages(bool newOrderOnly) =>
        newOrderOnly
            ? [(TpcCTransactionType.NewOrder, 100)]
            : [(TpcCTransactionType.NewOrder, 45), (TpcCTransactionType.Payment, 43), (TpcCTransactionType.OrderStatus, 4), (TpcCTransactionType.Delivery, 4), (TpcCTransactionType.StockLevel, 4)];

    /// <summary>The database <paramref name="mode"/> runs on.</summary>
    public TpcCDatabase Database(string mode) => ClientOf(mode).Database;

    /// <inheritdoc />
    public IReadOnlyList<IAddressable> Grains(string mode, IGrainFactory grains) =>
        ActorGrains.Of(grains, Database(mode).AllActors(), typeof(IItemActor), typeof(IWarehouseActor), typeof(IDistrictActor), typeof(ICustomerActor), typeof(IOrderActor), typeof(IStockActor));

    /// <summary>None: TPC-C's actors have no one read they share, so the liveness probe skips them.</summary>
    public Func<int, Task>? Read(string mode) => null;

    /// <summary>Loads <paramref name="mode"/>'s database with transactions of <see cref="StateModeOf"/> that mode.</summary>
    public Task<TpcCLoadResult> LoadAsync(string mode, ILogger? logger = null, CancellationToken cancellationToken = default) =>
        TpcCLoader.LoadAsync(ClientOf(mode), StateModeOf(mode), logger: logger, cancellationToken: cancellationToken);

    /// <summary>
    /// "Issue one transaction of the standard mix (or one NewOrder)" in <paramref name="mode"/>;
    /// in hybrid, as a PACT or an ACT drawn from the same Random after the input.
    /// </summary>
    public IssueTransaction For(string mode, bool newOrderOnly)
    {
        var tpcc = ClientOf(mode);
        return keys =>
        {
            var random = RandomFor(keys);
            var input = generator.Next(random, newOrderOnly);
            return IssueAsync(mode, tpcc, TxnModeFor(mode, random), input);
        };
    }

    /// <summary>
    /// "Issue one transaction of <paramref name="type"/>" in <paramref name="mode"/>: one kind
    /// per type, for a driver that draws the mix itself and reports each kind on its own row. In
    /// hybrid it is a PACT or an ACT drawn from the same Random after the input.
    /// </summary>
    public IssueTransaction For(string mode, TpcCTransactionType type)
    {
        var tpcc = ClientOf(mode);
        var draw = Drawer(type);
        return keys =>
        {
            var random = RandomFor(keys);
            var input = draw(random);
            return IssueAsync(mode, tpcc, TxnModeFor(mode, random), input);
        };
    }

    /// <summary>
    /// "Issue one transaction of <paramref name="type"/>" on <paramref name="mode"/>'s database as
    /// a <paramref name="txnMode"/> transaction, whatever the mode (hybrid's variants).
    /// </summary>
    public IssueTransaction For(string mode, TpcCTransactionType type, TxnMode txnMode)
    {
        var tpcc = ClientOf(mode);
        var draw = Drawer(type);
        return keys => IssueAsync(mode, tpcc, txnMode, draw(RandomFor(keys)));
    }

    /// <summary>
    /// What <paramref name="mode"/> issues as a <see cref="TransactionMix"/> of one kind per TPC-C
    /// type (named <c>neworder</c>, <c>payment</c>, <c>orderstatus</c>, <c>delivery</c>,
    /// <c>stocklevel</c>) at the standard percentages, so the load driver draws the type and reports
    /// each on its own row (NewOrder throughput is the <c>neworder</c> row); NewOrder only is a
    /// single kind, reported as the mode itself. Hybrid crosses the types with two variants,
    /// <c>pact</c> (pact-percent) and <c>act</c> (the rest), drawn independently of the type, so each
    /// type keeps its row and the variants get theirs (and each type its split).
    /// </summary>
    public TransactionMix Kinds(string mode, bool newOrderOnly)
    {
        if (mode == ModeNames.Hybrid)
        {
            var types = MixPercentages(newOrderOnly);
            TxnMode[] variants = [TxnMode.Pact, TxnMode.Act];
            return TransactionMix.Crossed(
                [.. types.Select(m => (newOrderOnly ? mode : KindName(m.Type), m.Percent))],
                [new TransactionVariant(ModeNames.Pact, pactPercent), new TransactionVariant(ModeNames.Act, 100 - pactPercent)],
                (k, v) => For(mode, types[k].Type, variants[v]));
        }

        return newOrderOnly
            ? TransactionMix.Single(mode, For(mode, TpcCTransactionType.NewOrder))
            : new TransactionMix([.. MixPercentages(newOrderOnly: false).Select(m => new TransactionKind(KindName(m.Type), For(mode, m.Type), m.Percent))]);
    }

    /// <summary>The kind name of <paramref name="type"/> in reports: its name in lower case.</summary>
    public static string KindName(TpcCTransactionType type) => type.ToString().ToLowerInvariant();

    /// <summary>Checks TPC-C consistency conditions 1–4 on <paramref name="mode"/>'s database; run it after the load drained.</summary>
    public Task<TpcCConsistencyResult> VerifyAsync(string mode, CancellationToken cancellationToken = default) =>
        TpcCConsistency.CheckAsync(ClientOf(mode), StateModeOf(mode), cancellationToken: cancellationToken);

    /// <summary>The transaction mode behind a load generator mode name that issues only one (pact, act).</summary>
    public static TxnMode TxnModeOf(string mode) => mode switch
    {
        ModeNames.Pact => TxnMode.Pact,
        ModeNames.Act => TxnMode.Act,
        ModeNames.Hybrid => throw new ArgumentOutOfRangeException(nameof(mode), mode, "hybrid issues both PACTs and ACTs; see TxnModeFor."),
        _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, $"tpcc runs in modes {string.Join(", ", Modes)} only."),
    };

    /// <summary>
    /// The transaction mode <paramref name="mode"/>'s database is loaded and checked with: its own;
    /// PACTs for hybrid, whose actors take both (the load and the check run alone there).
    /// </summary>
    public static TxnMode StateModeOf(string mode) => mode == ModeNames.Hybrid ? TxnMode.Pact : TxnModeOf(mode);

    // pact and act: their mode; hybrid: a PACT with probability pact-percent, drawn from random.
    private TxnMode TxnModeFor(string mode, Random random) =>
        mode == ModeNames.Hybrid ? (random.Next(100) < pactPercent ? TxnMode.Pact : TxnMode.Act) : TxnModeOf(mode);

    /// <summary>A Random seeded by the driver's keys for one transaction (SplitMix64 over the keys).</summary>
    public static Random RandomFor(int[] keys)
    {
        ArgumentNullException.ThrowIfNull(keys);
        var z = 0x2545F4914F6CDD1DUL;
        foreach (var key in keys)
        {
            unchecked
            {
                z ^= (uint)key;
                z += 0x9E3779B97F4A7C15UL;
                z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
                z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
                z ^= z >> 31;
            }
        }

        return new Random((int)(z ^ (z >> 32)));
    }

    private async Task IssueAsync(string mode, TpcCClient tpcc, TxnMode txnMode, TpcCInput input)
    {
        try
        {
            await tpcc.Run(input, txnMode);
        }
        catch
        {
            Mix.Record(mode, input.Type, committed: false);
            throw;
        }

        Mix.Record(mode, input.Type, committed: true);
    }

    private Func<Random, TpcCInput> Drawer(TpcCTransactionType type) => type switch
    {
        TpcCTransactionType.NewOrder => generator.NewOrder,
        TpcCTransactionType.Payment => generator.Payment,
        TpcCTransactionType.OrderStatus => generator.OrderStatus,
        TpcCTransactionType.Delivery => generator.Delivery,
        TpcCTransactionType.StockLevel => generator.StockLevel,
        _ => throw new ArgumentOutOfRangeException(nameof(type), type, "Unknown TPC-C transaction type."),
    };

    private TpcCClient ClientOf(string mode)
    {
        StateModeOf(mode); // rejects modes TPC-C has not
        lock (gate)
        {
            if (!clients.TryGetValue(mode, out var tpcc))
            {
                clients[mode] = tpcc = new TpcCClient(client, new TpcCDatabase(mode, Config));
            }

            return tpcc;
        }
    }
}
