using Microsoft.Extensions.DependencyInjection;
using Snapper;

namespace SmallBank;

/// <summary>What a silo needs to take SmallBank's after-commit notices.</summary>
public static class TransferNoticeHosting
{
    /// <summary>
    /// Registers <see cref="TransferNotices"/> as the handler of <see cref="TransferNotice"/> (one
    /// instance, also reachable as itself for its counts). An application with nothing to read back
    /// writes <c>AddSnapper(snapper =&gt; snapper.AddAfterCommitHandler&lt;TransferNotice, TransferNotices&gt;())</c>.
    /// </summary>
    public static ISiloBuilder AddTransferNotices(this ISiloBuilder silo)
    {
        ArgumentNullException.ThrowIfNull(silo);
        silo.Services.AddSingleton<TransferNotices>();
        silo.Services.AddSingleton<IAfterCommitHandler<TransferNotice>>(sp => sp.GetRequiredService<TransferNotices>());
        return silo;
    }
}
