using Snapper;
using TpcC.Actors;
using TpcC.Transactions;

namespace TpcC.Client;

/// <summary>
/// Runs the TPC-C transactions on one database, each as an ACT or as a PACT declared by
/// <see cref="TpcCAccess"/>. An aborted transaction throws <see cref="TransactionAbortedException"/>;
/// NewOrder's invalid-item rollback has <see cref="AbortReason.User"/> in both modes.
/// </summary>
public sealed class TpcCClient
{
    private readonly ISnapperClient snapper;

    /// <summary>A client of <paramref name="database"/> through <paramref name="snapper"/>.</summary>
    public TpcCClient(ISnapperClient snapper, TpcCDatabase database)
    {
        ArgumentNullException.ThrowIfNull(snapper);
        ArgumentNullException.ThrowIfNull(database);
        this.snapper = snapper;
        Database = database;
    }

    /// <summary>The database the transactions run on.</summary>
    public TpcCDatabase Database { get; }

    /// <summary>NewOrder (§2.4).</summary>
    public Task<NewOrderResult> NewOrder(NewOrderInput input, TxnMode mode, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(input);
        var db = Database;
        return Run<IDistrictActor, NewOrderResult>(mode, input, (a, ctx) => a.NewOrder(ctx, db, input), cancellationToken);
    }

    /// <summary>Payment (§2.5).</summary>
    public Task<PaymentResult> Payment(PaymentInput input, TxnMode mode, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(input);
        var db = Database;
        return Run<IDistrictActor, PaymentResult>(mode, input, (a, ctx) => a.Payment(ctx, db, input), cancellationToken);
    }

    /// <summary>OrderStatus (§2.6), read-only.</summary>
    public Task<OrderStatusResult> OrderStatus(OrderStatusInput input, TxnMode mode, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(input);
        var db = Database;
        return Run<ICustomerActor, OrderStatusResult>(mode, input, (a, ctx) => a.OrderStatus(ctx, db, input), cancellationToken);
    }

    /// <summary>Delivery (§2.7), all districts of the warehouse in one transaction.</summary>
    public Task<DeliveryResult> Delivery(DeliveryInput input, TxnMode mode, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(input);
        var db = Database;
        return Run<IDistrictActor, DeliveryResult>(mode, input, (a, ctx) => a.Delivery(ctx, db, input), cancellationToken);
    }

    /// <summary>StockLevel (§2.8), read-only.</summary>
    public Task<StockLevelResult> StockLevel(StockLevelInput input, TxnMode mode, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(input);
        var db = Database;
        return Run<IDistrictActor, StockLevelResult>(mode, input, (a, ctx) => a.StockLevel(ctx, db, input), cancellationToken);
    }

    /// <summary>Runs whichever transaction <paramref name="input"/> is for; completes when it committed.</summary>
    public Task Run(TpcCInput input, TxnMode mode, CancellationToken cancellationToken = default) => input switch
    {
        NewOrderInput i => NewOrder(i, mode, cancellationToken),
        PaymentInput i => Payment(i, mode, cancellationToken),
        OrderStatusInput i => OrderStatus(i, mode, cancellationToken),
        DeliveryInput i => Delivery(i, mode, cancellationToken),
        StockLevelInput i => StockLevel(i, mode, cancellationToken),
        _ => throw new ArgumentOutOfRangeException(nameof(input), input, "Unknown TPC-C input."),
    };

    /// <summary>
    /// A transaction on the single actor <paramref name="actor"/>: the loader's fills and the
    /// checker's reads. As a PACT it declares one call on that actor.
    /// </summary>
    public Task<TResult> On<TActor, TResult>(ActorId actor, TxnMode mode, Func<TActor, TxnContext, Task<TResult>> body, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor =>
        mode switch
        {
            TxnMode.Act => snapper.RunAct(actor, body, cancellationToken),
            TxnMode.Pact => snapper.RunPact(actor, body, AccessSet.Of(actor), cancellationToken),
            _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, "Unknown transaction mode."),
        };

    /// <summary>A transaction on the single actor <paramref name="actor"/>, without a result.</summary>
    public Task On<TActor>(ActorId actor, TxnMode mode, Func<TActor, TxnContext, Task> body, CancellationToken cancellationToken = default)
        where TActor : ITransactionalActor =>
        On<TActor, bool>(actor, mode, async (a, ctx) =>
        {
            await body(a, ctx);
            return true;
        }, cancellationToken);

    private Task<TResult> Run<TActor, TResult>(TxnMode mode, TpcCInput input, Func<TActor, TxnContext, Task<TResult>> body, CancellationToken cancellationToken)
        where TActor : ITransactionalActor
    {
        var root = TpcCAccess.RootOf(Database, input);
        return mode switch
        {
            TxnMode.Act => snapper.RunAct(root, body, cancellationToken),
            TxnMode.Pact => snapper.RunPact(root, body, TpcCAccess.For(Database, input), cancellationToken),
            _ => throw new ArgumentOutOfRangeException(nameof(mode), mode, "Unknown transaction mode."),
        };
    }
}
