namespace SmallBank;

/// <summary>A SmallBank customer's two accounts: the state of an <see cref="AccountActor"/>.</summary>
[GenerateSerializer]
public sealed class Account
{
    /// <summary>What every account starts with in each of checking and savings.</summary>
    public const decimal InitialBalance = 10_000m;

    /// <summary>The checking account.</summary>
    [Id(0)]
    public decimal Checking { get; set; } = InitialBalance;

    /// <summary>The savings account.</summary>
    [Id(1)]
    public decimal Savings { get; set; } = InitialBalance;

    /// <summary>Checking plus savings. A method, so serializers do not store it with the state.</summary>
    public decimal Total() => Checking + Savings;
}
