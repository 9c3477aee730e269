using System.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Snapper.LoadGen.Cluster;

/// <summary>
/// The one warning every Orleans 10.4 silo logs as it starts, falsely: "Participant check thread has
/// not completed for 19:31:24…, potentially indicating … deadlock". Orleans' <c>Watchdog.Start</c>
/// starts its platform thread before it sets the component check's timestamp, so the platform
/// thread's first look measures from timestamp 0, the machine's boot
/// (https://github.com/dotnet/orleans/blob/main/src/Orleans.Runtime/Silo/Watchdog.cs, <c>Start</c>
/// and <c>CheckRuntimeHealth</c>). Linked into SiloHost too. Only that message is dropped, only
/// before the silo serves, and only when the stall it names is longer than this process has run:
/// a real stall still warns.
/// </summary>
public static class StartupFalseAlarm
{
    private const string Category = "Orleans.Runtime.Watchdog";
    private const string Message = "Participant check thread has not completed for {TimeSinceLastTick}";

    /// <summary>Whether this log record is that false alarm; <paramref name="serving"/>: the silo has started.</summary>
    public static bool Is<TState>(string category, LogLevel level, TState state, bool serving)
    {
        if (serving || level != LogLevel.Warning || category != Category || state is not IReadOnlyList<KeyValuePair<string, object?>> fields)
        {
            return false;
        }

        var (format, stalled) = ((string?)null, (TimeSpan?)null);
        foreach (var (key, value) in fields)
        {
            if (key == "{OriginalFormat}")
            {
                format = value as string;
            }
            else if (key == "TimeSinceLastTick" && value is TimeSpan span)
            {
                stalled = span;
            }
        }

        if (format is null || !format.StartsWith(Message, StringComparison.Ordinal))
        {
            return false;
        }

        using var process = Process.GetCurrentProcess();
        return stalled > DateTime.Now - process.StartTime;
    }
}
