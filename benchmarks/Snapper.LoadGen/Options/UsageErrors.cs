using System.CommandLine;
using System.CommandLine.Parsing;

namespace Snapper.LoadGen.Options;

/// <summary>
/// Turns a parse with errors into the one line a usage error prints: the first problem, naming the
/// flag, and for a misspelt flag the flag meant. System.CommandLine's own typo corrections print a
/// block per unmatched token (a misspelt flag's value becomes a second one); one line is what a
/// script's log needs. Shared with SiloHost (linked into its project), so both CLIs fail alike.
/// </summary>
public static class UsageErrors
{
    /// <summary>The line for <paramref name="parsed"/>'s first error, or null if it has none.</summary>
    public static string? Describe(ParseResult parsed)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        if (parsed.Errors.Count == 0)
        {
            return null;
        }

        var command = parsed.CommandResult.Command;
        if (command is RootCommand && command.Subcommands.Count > 0)
        {
            var first = parsed.Tokens.FirstOrDefault()?.Value;
            var names = command.Subcommands.Select(c => c.Name).ToList();
            return first is null
                ? $"no subcommand given; use one of {string.Join(", ", names)}."
                : $"unknown subcommand '{first}'; use one of {string.Join(", ", names)}{Hint(first, names)}";
        }

        if (parsed.UnmatchedTokens.FirstOrDefault(t => t.StartsWith('-')) is { } flag)
        {
            var name = flag.Split('=', 2)[0];
            var flags = command.Options.SelectMany(o => o.Aliases.Prepend(o.Name)).Where(n => n.StartsWith("--", StringComparison.Ordinal));
            return $"{command.Name} has no flag {name}{Hint(name, flags)}";
        }

        if (parsed.UnmatchedTokens.FirstOrDefault() is { } stray)
        {
            return $"unexpected argument '{stray}': {command.Name} takes only flags (--name value).";
        }

        return parsed.Errors[0].Message;
    }

    /// <summary>
    /// The line after a usage error: how to see the flags, said so that it holds however the
    /// program was started (<c>dotnet run ... --</c>, the built dll, a container), naming the subcommand.
    /// </summary>
    public static string HelpHint(ParseResult parsed)
    {
        ArgumentNullException.ThrowIfNull(parsed);
        return parsed.CommandResult.Command is RootCommand
            ? "Add --help for the flags."
            : $"Add --help after '{parsed.CommandResult.Command.Name}' for its flags.";
    }

    // "; did you mean --duration?" for the closest name within a third of its length, else ".".
    private static string Hint(string typed, IEnumerable<string> names)
    {
        var best = names
            .Select(n => (Name: n, Distance: Distance(typed, n)))
            .Where(c => c.Distance <= Math.Max(2, c.Name.Length / 3))
            .OrderBy(c => c.Distance)
            .FirstOrDefault();
        return best.Name is null ? "." : $"; did you mean {best.Name}?";
    }

    // Levenshtein distance, two rows.
    private static int Distance(string a, string b)
    {
        var previous = new int[b.Length + 1];
        var current = new int[b.Length + 1];
        for (var j = 0; j <= b.Length; j++)
        {
            previous[j] = j;
        }

        for (var i = 1; i <= a.Length; i++)
        {
            current[0] = i;
            for (var j = 1; j <= b.Length; j++)
            {
                var substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
                current[j] = Math.Min(substitution, Math.Min(previous[j], current[j - 1]) + 1);
            }

            (previous, current) = (current, previous);
        }

        return previous[b.Length];
    }
}
