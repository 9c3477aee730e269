using System.Globalization;
using Snapper;
using TpcC.Loading;
using TpcC.Messages;
using TpcC.Schema;
using TpcC.Transactions;

namespace TpcC.Actors;

/// <summary>The customer actor: one partition of a district's customers and their history; the root of OrderStatus.</summary>
public sealed class CustomerActor : TransactionalActor<CustomerPartition>, ICustomerActor
{
    /// <summary>How much of C_DATA Payment shows for a bad-credit customer.</summary>
    public const int ShownDataLength = 200;

    /// <inheritdoc />
    public async Task Load(TxnContext ctx, TpcCDatabase db, int w, int d, int partition, DateTime now) =>
        RowGenerator.FillCustomers(await GetState(ctx, AccessMode.ReadWrite), db, w, d, partition, now);

    /// <inheritdoc />
    public async Task<CustomerCredit> Credit(TxnContext ctx, int customerId)
    {
        var partition = await LoadedState(ctx, AccessMode.Read);
        var customer = Find(partition, CustomerSelector.ById(customerId));
        return new CustomerCredit(customer.Id, customer.Last, customer.Credit, customer.Discount);
    }

    /// <inheritdoc />
    public async Task<CustomerView> Pay(TxnContext ctx, CustomerPayment payment)
    {
        ArgumentNullException.ThrowIfNull(payment);
        var partition = await LoadedState(ctx, AccessMode.ReadWrite);
        var customer = Find(partition, payment.Customer);
        customer = customer with
        {
            Balance = customer.Balance - payment.Amount,
            YtdPayment = customer.YtdPayment + payment.Amount,
            PaymentCount = customer.PaymentCount + 1,
        };
        string? shown = null;
        if (customer.Credit == Customer.BadCredit)
        {
            // §2.5.2.2: the payment's ids and amount go in front of C_DATA, which is cut to 500 characters.
            var entry = string.Create(CultureInfo.InvariantCulture, $"{customer.Id} {customer.DistrictId} {customer.WarehouseId} {payment.DistrictId} {payment.WarehouseId} {payment.Amount:0.00}|");
            var data = entry + customer.Data;
            customer = customer with { Data = data.Length > Customer.MaxDataLength ? data[..Customer.MaxDataLength] : data };
            shown = customer.Data.Length > ShownDataLength ? customer.Data[..ShownDataLength] : customer.Data;
        }

        partition.Customers[customer.Id] = customer;

        partition.History.Add(new HistoryRow
        {
            CustomerId = customer.Id,
            CustomerDistrictId = customer.DistrictId,
            CustomerWarehouseId = customer.WarehouseId,
            DistrictId = payment.DistrictId,
            WarehouseId = payment.WarehouseId,
            Date = payment.Date,
            Amount = payment.Amount,
            Data = payment.HistoryData,
        });
        return View(customer, shown);
    }

    /// <inheritdoc />
    public async Task<OrderStatusResult> OrderStatus(TxnContext ctx, TpcCDatabase db, OrderStatusInput input)
    {
        ArgumentNullException.ThrowIfNull(db);
        ArgumentNullException.ThrowIfNull(input);
        var customer = Find(await LoadedState(ctx, AccessMode.Read), input.Customer);
        var orders = db.Orders(input.WarehouseId, input.DistrictId, db.OrderPartitionOf(customer.Last));
        var order = await CallActor<IOrderActor, OrderView?>(ctx, orders, a => a.LastOrderOf(ctx, customer.Id));
        return new OrderStatusResult(View(customer, null), order);
    }

    /// <inheritdoc />
    public async Task Deliver(TxnContext ctx, IReadOnlyList<CustomerDelivery> deliveries)
    {
        ArgumentNullException.ThrowIfNull(deliveries);
        if (deliveries.Count == 0)
        {
            return; // a PACT's declared call with nothing to do here: no write, no copy
        }

        var partition = await LoadedState(ctx, AccessMode.ReadWrite);
        foreach (var delivery in deliveries)
        {
            var customer = Find(partition, CustomerSelector.ById(delivery.CustomerId));
            partition.Customers[customer.Id] = customer with
            {
                Balance = customer.Balance + delivery.Amount,
                DeliveryCount = customer.DeliveryCount + 1,
            };
        }
    }

    /// <inheritdoc />
    public async Task<CustomerPartition> Read(TxnContext ctx) => StateCopy.Of(await GetState(ctx, AccessMode.Read));

    private static CustomerView View(Customer c, string? data) =>
        new(c.Id, c.DistrictId, c.WarehouseId, c.First, c.Middle, c.Last, new Address(c.Street1, c.Street2, c.City, c.State, c.Zip),
            c.Phone, c.Since, c.Credit, c.CreditLimit, c.Discount, c.Balance, data);

    private Customer Find(CustomerPartition partition, CustomerSelector selector) =>
        CustomerSelection.Find(partition, selector)
        ?? throw new TransactionAbortedException(AbortReason.User, $"No customer with {selector} in district {partition.WarehouseId}/{partition.DistrictId} (actor {Id}).");

    private async Task<CustomerPartition> LoadedState(TxnContext ctx, AccessMode mode)
    {
        var partition = await GetState(ctx, mode);
        return partition.WarehouseId != 0 ? partition : throw new InvalidOperationException($"Actor {Id} holds no customers: load the database first (TpcCLoader).");
    }
}
