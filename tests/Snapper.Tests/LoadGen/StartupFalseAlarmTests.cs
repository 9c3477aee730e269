using Microsoft.Extensions.Logging;
using Snapper.LoadGen.Cluster;

namespace Snapper.Tests.LoadGen;

/// <summary>
/// Orleans' false Watchdog alarm at start-up is recognised by its message, only before the silo
/// serves, and only when the stall it names is longer than the process has run.
/// </summary>
public sealed class StartupFalseAlarmTests
{
    private const string Watchdog = "Orleans.Runtime.Watchdog";
    private const string Format = "Participant check thread has not completed for {TimeSinceLastTick}, potentially indicating lock contention or deadlock, CPU starvation, or another execution anomaly.";

    [Fact]
    public void The_alarm_measured_from_boot_before_the_silo_serves_is_false()
    {
        Assert.True(StartupFalseAlarm.Is(Watchdog, LogLevel.Warning, State(Format, TimeSpan.FromDays(3650)), serving: false));
    }

    [Fact]
    public void Once_the_silo_serves_the_same_alarm_is_shown()
    {
        Assert.False(StartupFalseAlarm.Is(Watchdog, LogLevel.Warning, State(Format, TimeSpan.FromDays(3650)), serving: true));
    }

    [Fact]
    public void A_stall_shorter_than_the_process_has_run_is_real()
    {
        Assert.False(StartupFalseAlarm.Is(Watchdog, LogLevel.Warning, State(Format, TimeSpan.FromMilliseconds(1)), serving: false));
    }

    [Fact]
    public void Another_watchdog_message_or_category_is_shown()
    {
        Assert.False(StartupFalseAlarm.Is(Watchdog, LogLevel.Warning, State(".NET Runtime Platform stalled for {TimeSinceLastTick}.", TimeSpan.FromDays(3650)), serving: false));
        Assert.False(StartupFalseAlarm.Is("Orleans.Runtime.Silo", LogLevel.Warning, State(Format, TimeSpan.FromDays(3650)), serving: false));
        Assert.False(StartupFalseAlarm.Is(Watchdog, LogLevel.Warning, "a plain string", serving: false));
    }

    // What a [LoggerMessage] passes as its state: the fields, then the format.
    private static IReadOnlyList<KeyValuePair<string, object?>> State(string format, TimeSpan stalled) =>
        [new("TimeSinceLastTick", stalled), new("{OriginalFormat}", format)];
}
