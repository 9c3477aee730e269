using System.Globalization;

namespace Snapper.History;

/// <summary>
/// Checks the after-commit actions a list-append run registered (<c>--after-commit</c>: one per
/// list a transaction appended to) against the journal the silos' handler kept
/// (<c>SiloHost --after-commit-journal</c>): every committed transaction's actions were taken at
/// least once, none of an aborted one's, and each id taken once (a repeat delivery dropped by id).
/// Transactions in doubt may have theirs taken or not.
/// </summary>
public static class AfterCommitChecker
{
    /// <summary>What a journal says: the actions taken (tid, list key) by id, and the repeats dropped.</summary>
    /// <param name="Taken">Each id taken, with its transaction and list.</param>
    /// <param name="TakenTwice">Ids with more than one <c>taken</c> line: a repeat that was not dropped.</param>
    /// <param name="Repeats">Deliveries of an id already taken, which the handler dropped.</param>
    public sealed record Journal(IReadOnlyDictionary<string, (long Tid, string List)> Taken, IReadOnlyList<string> TakenTwice, int Repeats);

    /// <summary>The outcome.</summary>
    /// <param name="Ok">No violation.</param>
    /// <param name="Expected">Actions of committed transactions.</param>
    /// <param name="Missing">Actions of committed transactions never taken (tid/list), the first few.</param>
    /// <param name="MissingCount">How many.</param>
    /// <param name="OfAborted">Actions taken for an aborted transaction (tid/list), the first few.</param>
    /// <param name="OfAbortedCount">How many.</param>
    /// <param name="Journal">The journal read.</param>
    public sealed record Result(bool Ok, int Expected, IReadOnlyList<string> Missing, int MissingCount, IReadOnlyList<string> OfAborted, int OfAbortedCount, Journal Journal);

    private const int Shown = 5;

    /// <summary>Reads a journal: lines <c>taken|repeat TAB id TAB tid TAB list-key</c>; throws <see cref="InvalidDataException"/> naming a malformed line.</summary>
    public static Journal Read(IEnumerable<string> lines)
    {
        ArgumentNullException.ThrowIfNull(lines);
        var taken = new Dictionary<string, (long, string)>(StringComparer.Ordinal);
        var twice = new List<string>();
        var repeats = 0;
        var number = 0;
        foreach (var line in lines)
        {
            number++;
            if (line.Length == 0)
            {
                continue;
            }

            var fields = line.Split('\t');
            if (fields.Length != 4 || !long.TryParse(fields[2], NumberStyles.None, CultureInfo.InvariantCulture, out var tid) || fields[0] is not ("taken" or "repeat"))
            {
                throw new InvalidDataException($"line {number} is not 'taken|repeat TAB id TAB tid TAB list': '{line}'");
            }

            if (fields[0] == "repeat")
            {
                repeats++;
            }
            else if (!taken.TryAdd(fields[1], (tid, fields[3])))
            {
                twice.Add(fields[1]);
            }
        }

        return new Journal(taken, twice, repeats);
    }

    /// <summary>Checks <paramref name="journal"/> against <paramref name="history"/> (every run's, as one).</summary>
    public static Result Check(IEnumerable<HistoryEntry> history, Journal journal)
    {
        ArgumentNullException.ThrowIfNull(history);
        ArgumentNullException.ThrowIfNull(journal);
        var takenByTid = journal.Taken.Values.ToLookup(t => t.Tid);
        var missing = new List<string>();
        var ofAborted = new List<string>();
        int expected = 0, missingCount = 0, ofAbortedCount = 0;
        foreach (var entry in history)
        {
            switch (entry.Status)
            {
                case TransactionStatus.Committed:
                    var lists = takenByTid[entry.Tid].Select(t => t.List).ToHashSet(StringComparer.Ordinal);
                    foreach (var append in entry.Appends)
                    {
                        expected++;
                        if (!lists.Contains(append.Actor) && ++missingCount <= Shown)
                        {
                            missing.Add($"{entry.Tid}/{append.Actor}");
                        }
                    }

                    break;
                case TransactionStatus.Aborted:
                    foreach (var (tid, list) in takenByTid[entry.Tid])
                    {
                        if (++ofAbortedCount <= Shown)
                        {
                            ofAborted.Add($"{tid}/{list}");
                        }
                    }

                    break;
            }
        }

        return new Result(missingCount == 0 && ofAbortedCount == 0 && journal.TakenTwice.Count == 0, expected, missing, missingCount, ofAborted, ofAbortedCount, journal);
    }

    /// <summary>One line saying what the check found.</summary>
    public static string Render(Result result)
    {
        ArgumentNullException.ThrowIfNull(result);
        var journal = result.Journal;
        var summary = string.Create(CultureInfo.InvariantCulture,
            $"{result.Expected} action(s) of committed transactions, {journal.Taken.Count} taken, {journal.Repeats} repeat delivery(ies) dropped by id");
        if (result.Ok)
        {
            return $"after-commit check OK: {summary}, none of an aborted transaction{Environment.NewLine}";
        }

        var problems = new List<string>();
        if (result.MissingCount > 0)
        {
            problems.Add(string.Create(CultureInfo.InvariantCulture, $"{result.MissingCount} never taken ({string.Join(", ", result.Missing)})"));
        }

        if (result.OfAbortedCount > 0)
        {
            problems.Add(string.Create(CultureInfo.InvariantCulture, $"{result.OfAbortedCount} taken for an aborted transaction ({string.Join(", ", result.OfAborted)})"));
        }

        if (journal.TakenTwice.Count > 0)
        {
            problems.Add(string.Create(CultureInfo.InvariantCulture, $"{journal.TakenTwice.Count} id(s) taken twice ({string.Join(", ", journal.TakenTwice.Take(Shown))})"));
        }

        return $"after-commit check FAILED: {summary}; {string.Join("; ", problems)}{Environment.NewLine}";
    }
}
