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

    /// <summary>Throws naming the option that cannot work, before anything connects.</summary>
    /// <exception cref="ArgumentException">A missing connection string or an invalid table name.</exception>
    public void Validate()
    {
        if (string.IsNullOrWhiteSpace(ConnectionString))
        {
            throw new ArgumentException("AzureTableLogStorageOptions.ConnectionString is required.");
        }

        if (TableName is not { Length: >= 3 and <= 63 } || !char.IsAsciiLetter(TableName[0]) || !TableName.All(char.IsAsciiLetterOrDigit))
        {
            throw new ArgumentException($"AzureTableLogStorageOptions.TableName '{TableName}' is not 3-63 letters and digits starting with a letter.");
        }
    }
}
