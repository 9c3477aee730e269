namespace Snapper.Logging.AzureTable;

/// <summary>Where <see cref="AzureTableLogStorage"/> keeps Snapper's logs.</summary>
public sealed class AzureTableLogStorageOptions
{
    /// <summary>The default <see cref="TableName"/>.</summary>
    public const string DefaultTableName = "snapperlog";

    /// <summary>The storage account's connection string (Azurite: <c>UseDevelopmentStorage=true</c>).</summary>
    public string ConnectionString { get; set; } = "";

    /// <summary>The table, created if missing: 3-63 letters and digits, starting with a letter.</summary>
    public string TableName { get; set; } = DefaultTableName;

    /// <summary>
    /// The table of actors' states at rest (<see cref="AzureTableStateStore"/>), created if missing:
    /// by default <see cref="TableName"/> followed by "states".
    /// </summary>
    public string StateTableName
    {
        get => stateTableName ?? TableName + "states";
        set => stateTableName = value;
    }

    private string? stateTableName;

    /// <summary>The default <see cref="InDoubtPatience"/>.</summary>
    public static readonly TimeSpan DefaultInDoubtPatience = TimeSpan.FromSeconds(10);

    /// <summary>
    /// How long a failed write may take to be settled (did its group land or not?) before the log
    /// stops until the silo restarts (0 to 10 minutes; 0 stops at once). Writers to the log wait
    /// meanwhile; once storage answers, the write's callers learn the real outcome and the log goes on.
    /// </summary>
    public TimeSpan InDoubtPatience { get; set; } = DefaultInDoubtPatience;

    /// <summary>Throws naming the option that cannot work, before anything connects.</summary>
    /// <exception cref="ArgumentException">A missing connection string or an invalid table name.</exception>
    public void Validate()
    {
        if (string.IsNullOrWhiteSpace(ConnectionString))
        {
            throw new ArgumentException("AzureTableLogStorageOptions.ConnectionString is required.");
        }

        if (InDoubtPatience < TimeSpan.Zero || InDoubtPatience > TimeSpan.FromMinutes(10))
        {
            throw new ArgumentException($"AzureTableLogStorageOptions.InDoubtPatience must be between 0 and 10 minutes (was {InDoubtPatience}).");
        }

        if (TableName is not { Length: >= 3 and <= 63 } || !char.IsAsciiLetter(TableName[0]) || !TableName.All(char.IsAsciiLetterOrDigit))
        {
            throw new ArgumentException($"AzureTableLogStorageOptions.TableName '{TableName}' is not 3-63 letters and digits starting with a letter.");
        }

        if (StateTableName is not { Length: >= 3 and <= 63 } || !char.IsAsciiLetter(StateTableName[0]) || !StateTableName.All(char.IsAsciiLetterOrDigit))
        {
            throw new ArgumentException($"AzureTableLogStorageOptions.StateTableName '{StateTableName}' is not 3-63 letters and digits starting with a letter (by default it is TableName followed by \"states\").");
        }
    }
}
