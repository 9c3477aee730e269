using System.Globalization;
using System.Text;

namespace Snapper.History;

/// <summary>Renders a <see cref="CheckResult"/> as text for a command-line tool.</summary>
public static class CheckReport
{
    /// <summary>
    /// The one-line summary: verdict, transactions by status, lists, elements and violations by kind.
    /// </summary>
    public static string Summary(CheckResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        var text = new StringBuilder();
        text.Append(result.Ok ? "list-append check OK: " : "list-append check FAILED: ");
        text.Append(CultureInfo.InvariantCulture,
            $"{Count(result.TransactionCount, "transaction")} ({result.CommittedCount} committed, {result.AbortedCount} aborted, {result.UnknownCount} unknown");
        if (result.UnknownCount > 0)
        {
            text.Append(CultureInfo.InvariantCulture, $" [{result.UnknownVisibleCount} visible, {result.UnknownAbsentCount} absent]");
        }

        text.Append(CultureInfo.InvariantCulture,
            $"), {Count(result.ListCount, "list")}, {Count(result.ElementCount, "element")}, {Count(result.TotalViolations, "violation")}");
        if (!result.Ok)
        {
            text.Append(" (");
            text.AppendJoin(", ", result.ViolationCounts.OrderBy(kv => kv.Key).Select(kv => string.Create(CultureInfo.InvariantCulture, $"{kv.Key}: {kv.Value}")));
            text.Append(')');
        }

        return text.ToString();
    }

    /// <summary>The summary line, then every reported violation grouped by kind, noting those not reported.</summary>
    public static string Render(CheckResult result)
    {
        using var writer = new StringWriter(CultureInfo.InvariantCulture);
        Write(writer, result);
        return writer.ToString();
    }

    /// <summary>Writes <see cref="Render"/>'s text to <paramref name="writer"/>.</summary>
    public static void Write(TextWriter writer, CheckResult result)
    {
        ArgumentNullException.ThrowIfNull(writer);
        ArgumentNullException.ThrowIfNull(result);
        writer.WriteLine(Summary(result));
        foreach (var kind in result.ViolationCounts.Keys.Order())
        {
            var shown = 0;
            foreach (var violation in result.Of(kind))
            {
                writer.Write("  ");
                writer.WriteLine(violation.ToString());
                shown++;
            }

            var hidden = result.CountOf(kind) - shown;
            if (hidden > 0)
            {
                writer.WriteLine(string.Create(CultureInfo.InvariantCulture,
                    $"  ... and {hidden} more {kind} violations not shown (at most {result.MaxReportedPerKind} per kind are reported)"));
            }
        }
    }

    private static string Count(long n, string noun) =>
        string.Create(CultureInfo.InvariantCulture, $"{n} {noun}{(n == 1 ? string.Empty : "s")}");
}
