using Spectre.Console;

namespace Snapper.LoadGen.Reporting;

/// <summary>
/// Spectre.Console consoles over LoadGen's writers. On a terminal: colour, unicode borders and a
/// live progress display. Anywhere else (a pipe, a CI log, a test's writer): no escape codes, no
/// cursor movement, and wide enough that a results table never wraps.
/// </summary>
public static class Terminal
{
    private const int PlainWidth = 240;

    /// <summary>True when this process's stderr is an interactive terminal (live progress then).</summary>
    public static bool IsInteractive(TextWriter stderr) =>
        ReferenceEquals(stderr, System.Console.Error) && !System.Console.IsErrorRedirected && !System.Console.IsOutputRedirected;

    /// <summary>A console writing to <paramref name="writer"/>.</summary>
    public static IAnsiConsole Console(TextWriter writer, bool terminal)
    {
        ArgumentNullException.ThrowIfNull(writer);
        var console = AnsiConsole.Create(new AnsiConsoleSettings
        {
            Ansi = terminal ? AnsiSupport.Detect : AnsiSupport.No,
            ColorSystem = terminal ? ColorSystemSupport.Detect : ColorSystemSupport.NoColors,
            Interactive = terminal ? InteractionSupport.Detect : InteractionSupport.No,
            Out = new AnsiConsoleOutput(writer),
        });
        if (!terminal)
        {
            console.Profile.Width = PlainWidth;
        }

        return console;
    }
}
