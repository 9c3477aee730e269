using Microsoft.Extensions.Logging;
using Snapper.LoadGen.Options;
using TpcC;
using TpcC.Client;
using TpcC.Consistency;
using TpcC.Generation;
using TpcC.Loading;
using TpcC.Transactions;

namespace Snapper.LoadGen.Workloads.TpcC;

/// <summary>
/// TPC-C in modes pact and act. Each mode gets its own database, named after the mode and loaded
/// identically, so the modes start from the same data, never share an actor (one actor cannot yet
/// run ACTs and PACTs at once) and are checked on their own. A transaction's input is drawn from a
/// <see cref="Random"/> seeded by the keys the load driver picked for it: those come from the
/// loop's seeded Random, so a loop issues the same TPC-C inputs in every mode and every run.
/// </summary>
public sealed class TpcCWorkload
{
    private readonly ISnapperClient client;
    private readonly TpcCInputGenerator generator;
    private readonly Dictionary<string, TpcCClient> clients = new(StringComparer.Ordinal);
    private readonly object gate = new();

    /// <summary>The workload on databases of size <paramref name="config"/>.</summary>
    public TpcCWorkload(ISnapperClient client, TpcCConfig config)
    {
        ArgumentNullException.ThrowIfNull(client);
        ArgumentNullException.ThrowIfNull(config);
        config.Validate();
        this.client = client;
        Config = config;
        generator = new TpcCInputGenerator(config);
    }

    /// <summary>The size and partitioning of every mode's database.</summary>
    public TpcCConfig Config { get; }

    /// <summary>What each issued transaction was and how it ended, for <see cref="TpcCMixRecorder.Summarize"/>.</summary>
    public TpcCMixRecorder Mix { get; } = new();

    /// <summary>The modes TPC-C runs in.</summary>
    public static IReadOnlyList<string> Modes { get; } = [ModeNames.Pact, ModeNames.Act];

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

    /// <summary>Loads <paramref name="mode"/>'s database with transactions of that mode.</summary>
    public Task<TpcCLoadResult> LoadAsync(string mode, ILogger? logger = null, CancellationToken cancellationToken = default) =>
        TpcCLoader.LoadAsync(ClientOf(mode), TxnModeOf(mode), logger: logger, cancellationToken: cancellationToken);

    /// <summary>"Issue one transaction of the standard mix (or one NewOrder)" in <paramref name="mode"/>.</summary>
    public IssueTransaction For(string mode, bool newOrderOnly)
    {
        var tpcc = ClientOf(mode);
        var txnMode = TxnModeOf(mode);
        return keys =>
        {
            var input = generator.Next(RandomFor(keys), newOrderOnly);
            return IssueAsync(mode, tpcc, txnMode, input);
        };
    }

    /// <summary>
    /// "Issue one transaction of <paramref name="type"/>" in <paramref name="mode"/>: one kind
    /// per type, for a driver that draws the mix itself and reports each kind on its own row.
    /// </summary>
    public IssueTransaction For(string mode, TpcCTransactionType type)
    {
        var tpcc = ClientOf(mode);
        var txnMode = TxnModeOf(mode);
        Func<Random, TpcCInput> draw = type switch
        {
            TpcCTransactionType.NewOrder => generator.NewOrder,
            TpcCTransactionType.Payment => generator.Payment,
            TpcCTransactionType.OrderStatus => generator.OrderStatus,
            TpcCTransactionType.Delivery => generator.Delivery,
            TpcCTransactionType.StockLevel => generator.StockLevel,
            _ => throw new ArgumentOutOfRangeException(nameof(type), type, "Unknown TPC-C transaction type."),
        };
        return keys => IssueAsync(mode, tpcc, txnMode, draw(RandomFor(keys)));
    }

    /// <summary>
    /// What <paramref name="mode"/> issues as a <see cref="TransactionMix"/> of one kind per TPC-C
    /// type (named <c>neworder</c>, <c>payment</c>, <c>orderstatus</c>, <c>delivery</c>,
    /// <c>stocklevel</c>) at the standard percentages, so the load driver draws the type and reports
    /// each on its own row (NewOrder throughput is the <c>neworder</c> row); NewOrder only is a
    /// single kind, reported as the mode itself.
    /// </summary>
    public TransactionMix Kinds(string mode, bool newOrderOnly) =>
        newOrderOnly
            ? TransactionMix.Single(mode, For(mode, TpcCTransactionType.NewOrder))
            : new TransactionMix([.. MixPercentages(newOrderOnly: false).Select(m => new TransactionKind(KindName(m.Type), For(mode, m.Type), m.Percent))]);

    /// <summary>The kind name of <paramref name="type"/> in reports: its name in lower case.</summary>
    public static string KindName(TpcCTransactionType type) => type.ToString().ToLowerInvariant();

    /// <summary>Checks TPC-C consistency conditions 1–4 on <paramref name="mode"/>'s database; run it after the load drained.</summary>
    public Task<TpcCConsistencyResult> VerifyAsync(string mode, CancellationToken cancellationToken = default) =>
        TpcCConsistency.CheckAsync(ClientOf(mode), TxnModeOf(mode), cancellationToken: cancellationToken);

    /// <summary>The transaction mode behind a load generator mode name.</summary>
    public static TxnMode TxnModeOf(string mode) => mode switch
    {
        ModeNames.Pact => TxnMode.Pact,
        ModeNames.Act => TxnMode.Act,
        _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, $"tpcc runs in modes {string.Join(", ", Modes)} only."),
    };

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

    private TpcCClient ClientOf(string mode)
    {
        TxnModeOf(mode); // rejects modes TPC-C has not
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
