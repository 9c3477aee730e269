using Microsoft.Extensions.Logging;
using Snapper.LoadGen.Cluster;

namespace SiloHost;

/// <summary>
/// SiloHost's log on stderr (stdout carries only what SiloHost itself says): one line a record,
/// <c>HH:mm:ss level: category[event] message</c>, an exception as its type and first line, or
/// whole with <c>--verbose</c>. While the silo starts, records are held: once it serves they are
/// written, less Orleans' false Watchdog alarm (<see cref="StartupFalseAlarm"/>); if it fails to
/// start, SiloHost's one-line error stands for them. Once the silo stops, Orleans' lines about each
/// message it could no longer deliver (to grains already gone, with no silo left to place them on)
/// are counted, not written, and so are its lines saying that the stop ran out of the host's
/// shutdown bound (SiloHost then says so in its last line). With <c>--verbose</c> nothing is held
/// and nothing counted.
/// </summary>
internal sealed class SiloHostLog(TextWriter writer, bool verbose) : ILoggerProvider
{
    private readonly Lock gate = new();
    private readonly List<string> held = [];
    private Phase phase = verbose ? Phase.Writing : Phase.Holding;
    private bool siloServing;

    private enum Phase
    {
        Holding, // the silo starts: records wait for how the start ends
        Writing,
        Dropping, // the silo did not start: the one-line error stands for the records
        Stopping, // written, less the undeliverable messages, which are counted
    }

    private int undelivered;
    private int cutShort;

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    /// <summary>The silo serves: what was held is written, and from now on every record.</summary>
    public void Serving() => Enter(Phase.Writing, serving: true);

    /// <summary>The silo did not start: what was held is dropped (unless <c>--verbose</c>, which held nothing).</summary>
    public void StartFailed() => Enter(verbose ? Phase.Writing : Phase.Dropping, serving: false);

    /// <summary>The silo stops: from now on Orleans' lines about messages it cannot deliver are only counted.</summary>
    public void Stopping()
    {
        lock (gate)
        {
            phase = phase == Phase.Writing && !verbose ? Phase.Stopping : phase;
        }
    }

    /// <summary>How many of Orleans' lines about undeliverable messages the stop left out.</summary>
    public int Undelivered
    {
        get
        {
            lock (gate)
            {
                return undelivered;
            }
        }
    }

    /// <summary>How many of Orleans' lines said that the stop ran out of the host's shutdown bound (and were left out).</summary>
    public int CutShort
    {
        get
        {
            lock (gate)
            {
                return cutShort;
            }
        }
    }

    public void Dispose()
    {
    }

    private void Enter(Phase next, bool serving)
    {
        lock (gate)
        {
            (phase, siloServing) = (next, serving);
            if (next == Phase.Writing)
            {
                held.ForEach(writer.WriteLine);
            }

            held.Clear();
        }
    }

    private void Write<TState>(string category, LogLevel level, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
    {
        lock (gate)
        {
            if (phase == Phase.Dropping || StartupFalseAlarm.Is(category, level, state, siloServing))
            {
                return;
            }

            if (phase == Phase.Stopping && IsUndeliverable(category, eventId))
            {
                undelivered++;
                return;
            }

            if (phase == Phase.Stopping && IsCutShort(category, eventId, exception))
            {
                cutShort++;
                return;
            }

            var line = $"{DateTime.Now:HH:mm:ss} {Name(level)}: {category}[{eventId.Id}] {formatter(state, exception)}";
            if (exception is not null)
            {
                line += verbose ? $"{Environment.NewLine}{exception}" : $" ({exception.GetType().Name}: {exception.Message.Split('\n')[0].TrimEnd()})";
            }

            if (phase == Phase.Holding)
            {
                held.Add(line);
            }
            else
            {
                writer.WriteLine(line);
            }
        }
    }

    // A stopping silo deactivates its grains while messages to them are still coming in (its other
    // grains' calls, its gateway's clients): Orleans' messaging says, a line each, that it could not
    // forward or address them, its placement's retry policy (Polly) and its grain migration that no
    // silo is there to place them on, its runtime that a response found the messaging already
    // disposed (a call that ended after the stop's drain bound), and Snapper that a protocol
    // message to an actor failed (event 40) or an ACT's commit did not reach a participant (event
    // 3: the participant asks the ACT's root for the outcome, in its next activation or its
    // recovery). Their senders hear it as a failed call.
    private static bool IsUndeliverable(string category, EventId eventId) =>
        category.StartsWith("Orleans.Messaging", StringComparison.Ordinal)
        || category.StartsWith("Polly", StringComparison.Ordinal)
        || (category == "Orleans.Grain" && eventId.Id == MigrationDestinationError)
        || (category == "Orleans.Runtime.InsideRuntimeClient" && eventId.Id == ResponseSendFailed)
        || (category.StartsWith("Snapper.", StringComparison.Ordinal) && eventId.Id is SnapperDeliveryFailed or SnapperCommitDeliveryFailed);

    // The host's shutdown bound cancels a stop that is not done in time (SiloHost's design: what is
    // left is failed over from the logs, as after a crash). Orleans then says, a line each, that
    // grains did not deactivate promptly, how long the stage took, that the stop was canceled, and
    // that each grain it was moving could not be: one cause, which SiloHost says once.
    private static bool IsCutShort(string category, EventId eventId, Exception? exception) =>
        (category == "Orleans.Runtime.Silo" && eventId.Id == GrainsNotDeactivatedPromptly)
        || (category == "Orleans.Runtime.SiloLifecycleSubject" && eventId.Id is StageStoppedSlowly or StopCanceled)
        || (category == "Orleans.Grain" && eventId.Id == MigrationFailed && exception is OperationCanceledException);

    private const int GrainsNotDeactivatedPromptly = 1908313251; // Orleans: "Some grains failed to deactivate promptly."
    private const int StageStoppedSlowly = 100452; // Orleans: "'{Observer}' stopped in stage '{Stage}' in '{Elapsed}'."
    private const int StopCanceled = 724652102; // Orleans: "Lifecycle stop operations canceled at stage '{Stage}' by request."
    private const int MigrationFailed = 1946425930; // Orleans: "Failed to migrate activation '{Activation}'"
    private const int MigrationDestinationError = 186169153; // Orleans: "Error while selecting a migration destination"
    private const int ResponseSendFailed = 101531; // Orleans (IGC_SendResponseFailed): "Exception trying to send a response"
    private const int SnapperDeliveryFailed = 40; // Snapper: "A protocol message to actor {Actor} failed"
    private const int SnapperCommitDeliveryFailed = 3; // Snapper: "ACT {Tid} is committed but participant {Actor} did not take the Commit; ..."

    private static string Name(LogLevel level) => level switch
    {
        LogLevel.Trace => "trce",
        LogLevel.Debug => "dbug",
        LogLevel.Information => "info",
        LogLevel.Warning => "warn",
        LogLevel.Error => "fail",
        _ => "crit",
    };

    private sealed class Logger(SiloHostLog log, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel != LogLevel.None;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (IsEnabled(logLevel))
            {
                log.Write(category, logLevel, eventId, state, exception, formatter);
            }
        }
    }
}
