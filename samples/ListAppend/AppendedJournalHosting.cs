using Microsoft.Extensions.DependencyInjection;
using Snapper;

namespace ListAppend;

/// <summary>What a silo needs to take the list-append workload's after-commit actions.</summary>
public static class AppendedJournalHosting
{
    /// <summary>
    /// Registers <see cref="AppendedJournal"/> as the handler of <see cref="Appended"/>, writing to
    /// <paramref name="path"/> (null: in memory only); one instance, also reachable as itself.
    /// </summary>
    public static ISiloBuilder AddAppendedJournal(this ISiloBuilder silo, string? path)
    {
        ArgumentNullException.ThrowIfNull(silo);
        silo.Services.AddSingleton(new AppendedJournalOptions(path));
        silo.Services.AddSingleton<AppendedJournal>();
        silo.Services.AddSingleton<IAfterCommitHandler<Appended>>(sp => sp.GetRequiredService<AppendedJournal>());
        return silo;
    }
}
