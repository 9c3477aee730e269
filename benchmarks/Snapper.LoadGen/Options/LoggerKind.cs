namespace Snapper.LoadGen.Options;

/// <summary>Where the silo's loggers write (<c>--logger</c>). Only the kinds the runtime has today.</summary>
public enum LoggerKind
{
    /// <summary>No logging: measures Snapper without its persistence cost.</summary>
    None = 0,

    /// <summary>The runtime's in-memory log storage (group commit, no disk).</summary>
    Memory = 1,

    /// <summary>Write-ahead log files with an fsync per group commit (<c>--log-dir</c>, else a temporary folder).</summary>
    File = 2,

    /// <summary>Azure Table Storage at <c>--connection</c>, in a table of this run's own (<c>azure-table</c>).</summary>
    AzureTable = 3,
}
