using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Snapper.Diagnostics;
using Snapper.Configuration;

namespace Snapper.Logging;

/// <summary>
/// The silo's loggers (Snapper §4.1.1). Each actor writes through the logger its id hashes to, so
/// the records of many actors share each group commit. The logs are this silo's own (named after it). With <see cref="LoggingMode.None"/> there
/// are no loggers and <see cref="For"/> returns null: nothing is persisted.
/// </summary>
internal sealed class LogWriterPool
{
    private readonly LogWriter[] loggers;
    private readonly ILogStorage storage;
    private readonly string owner;
    private readonly IFatalErrorHandler fatal;
    private int stopping;

    public LogWriterPool(IOptions<SnapperOptions> options, ILogStorage storage, ILocalSiloDetails silo, SnapperMetrics metrics, TimeProvider clock, ILoggerFactory loggerFactory, IFatalErrorHandler fatal)
    {
        var settings = options.Value;
        var diagnostics = loggerFactory.CreateLogger("Snapper.Logging");
        if (settings.LogWriteDelay > TimeSpan.Zero)
        {
            storage = new DelayedLogStorage(storage, settings.LogWriteDelay, clock);
        }

        this.storage = storage;
        this.fatal = fatal;
        owner = OwnerOf(silo.SiloAddress);
        loggers = settings.Logging == LoggingMode.None
            ? []
            : Enumerable.Range(0, settings.EffectiveLoggerCount).Select(i => new LogWriter(LogName(silo.Name, i), storage, metrics, diagnostics, Fenced)).ToArray();
    }

    /// <summary>How a silo incarnation is named as a log's owner: its address, as the ring names incarnations.</summary>
    public static string OwnerOf(SiloAddress silo) => silo.ToParsableString();

    /// <summary>
    /// Makes this silo the writer of its logs (<see cref="ILogStorage.ClaimAsync"/>), as it starts,
    /// before recovery reads them: a log another process writes, or a corrupt one, stops the start here.
    /// </summary>
    public Task ClaimAsync(CancellationToken cancellationToken) =>
        Task.WhenAll(loggers.Select(logger => storage.ClaimAsync(logger.Name, owner, cancellationToken)));

    // A failover fenced one of this silo's logs: it was declared dead, and the survivors decide
    // what it left undecided. Nothing it would do from here counts, so it stops as Orleans stops a
    // silo told it is dead (in a test host, the silo's host stops; elsewhere the process ends).
    private void Fenced(LogFencedException e)
    {
        if (Interlocked.Exchange(ref stopping, 1) == 0)
        {
            fatal.OnFatalException(this, $"Snapper: this silo's log was fenced by the failover of its incarnation {owner}", e);
        }
    }

    public bool Enabled => loggers.Length > 0;

    /// <summary>True once a failover has fenced one of this silo's logs: the silo is stopping, and nothing it writes may count.</summary>
    public bool IsFenced => Volatile.Read(ref stopping) == 1;

    /// <summary>True once a group failed to persist in any of this silo's logs (a full disk, a storage outage).</summary>
    public bool HasFailedWrites => loggers.Any(l => l.FailedRanges > 0);

    /// <summary>The silo's loggers, one per log it writes (empty when logging is off).</summary>
    public IReadOnlyList<LogWriter> All => loggers;

    /// <summary>
    /// The name of silo <paramref name="silo"/>'s logger <paramref name="index"/>'s log in the
    /// storage. Every silo writes its own logs, so silos may share one storage (one folder, one
    /// table); recovery reads them all.
    /// </summary>
    public static string LogName(string silo, int index) => $"{Prefix}{Sanitize(silo)}-{index.ToString(System.Globalization.CultureInfo.InvariantCulture)}";

    /// <summary>True if <paramref name="log"/> is one of silo <paramref name="silo"/>'s logs (<see cref="LogName"/>), and no other silo's.</summary>
    public static bool IsLogOf(string log, string silo)
    {
        var prefix = $"{Prefix}{Sanitize(silo)}-";
        return log.Length > prefix.Length && log.StartsWith(prefix, StringComparison.Ordinal) && log.AsSpan(prefix.Length).IndexOfAnyExceptInRange('0', '9') < 0;
    }

    /// <summary>True for the name of a log Snapper's loggers write (this build's names, and the single-silo <c>snapper-log-{n}</c> of earlier builds).</summary>
    public static bool IsSnapperLog(string name) => name.StartsWith(Prefix, StringComparison.Ordinal);

    private const string Prefix = "snapper-";

    // A log name is a folder or table key: keep letters, digits, '-', '_' and '.'.
    private static string Sanitize(string silo) =>
        string.Create(silo.Length, silo, static (span, name) =>
        {
            for (var i = 0; i < name.Length; i++)
            {
                span[i] = char.IsAsciiLetterOrDigit(name[i]) || name[i] is '-' or '_' or '.' ? name[i] : '_';
            }
        });

    /// <summary>The logger of <paramref name="actor"/>, or null when logging is off.</summary>
    public LogWriter? For(ActorId actor) => loggers.Length == 0 ? null : loggers[StableHash.Of(actor) % (ulong)loggers.Length];

    /// <summary>The logger of this silo's coordinator <paramref name="key"/>, or null when logging is off.</summary>
    public LogWriter? ForCoordinator(string key) => For(ActorId.FromParts(CoordinatorActorType, key));

    /// <summary>The pseudo actor type whose id, with a coordinator's key, picks that coordinator's log writer.</summary>
    internal const string CoordinatorActorType = "snapper.coordinator";
}
