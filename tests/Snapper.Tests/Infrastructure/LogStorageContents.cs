using Snapper.Logging;

namespace Snapper.Tests.Infrastructure;

/// <summary>Reads a log back from any <see cref="ILogStorage"/>, for the storage tests to compare with what they wrote.</summary>
internal static class LogStorageContents
{
    /// <summary>Every record of <paramref name="log"/>, in order, copied out of the storage.</summary>
    public static async Task<List<byte[]>> ReadAllAsync(ILogStorage storage, string log)
    {
        var records = new List<byte[]>();
        await foreach (var record in storage.ReadAsync(log, CancellationToken.None))
        {
            records.Add(record.ToArray());
        }

        return records;
    }
}
