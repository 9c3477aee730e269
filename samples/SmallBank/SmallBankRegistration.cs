using Snapper.Hosting;

namespace SmallBank;

/// <summary>Registers the SmallBank actors with Snapper.</summary>
public static class SmallBankRegistration
{
    /// <summary>Adds <see cref="AccountActor"/> and <see cref="PlainAccountActor"/>.</summary>
    public static SnapperBuilder AddSmallBank(this SnapperBuilder snapper) =>
        snapper.AddActor<IAccountActor, AccountActor>()
               .AddActor<IPlainAccountActor, PlainAccountActor>();
}
