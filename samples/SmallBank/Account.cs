namespace SmallBank;

/// <summary>A SmallBank customer's two accounts: the state of an <see cref="AccountActor"/>.</summary>
public sealed class Account
{
    /// <summary>What every account starts with in each of checking and savings.</summary>
    public const decimal InitialBalance = 10_000m;

    /// <summary>The checking account.</summary>
    public decimal Checking { get; set; } = InitialBalance;

    /// <summary>The savings account.</summary>
    public decimal Savings { get; set; } = InitialBalance;

    /// <summary>Checking plus savings. A method, so serializers do not store it with the state.</summary>
    public decimal Total() => Checking + Savings;
}
