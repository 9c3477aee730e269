using System.Globalization;
using System.Text;
using Snapper;

namespace ListAppend;

/// <summary>Where <see cref="AppendedJournal"/> writes (null: it keeps what it took in memory only).</summary>
public sealed record AppendedJournalOptions(string? Path);

/// <summary>
/// The list-append workload's after-commit handler, as an application would write one that must
/// act once: it drops an action whose id it has taken before (Snapper delivers at least once) and
/// notes each one it takes, durably, in its journal. The journal is the record of the effect and of
/// the ids at once, so a crash between the two cannot make it take an action twice; a silo that
/// starts on an existing journal reads the ids back. One line per action:
/// <c>taken|repeat TAB id TAB tid TAB list-key</c>; the crash loop's check reads it
/// (<c>LoadGen check --journal</c>).
/// </summary>
public sealed class AppendedJournal : IAfterCommitHandler<Appended>, IDisposable
{
    private readonly SemaphoreSlim gate = new(1, 1);
    private readonly HashSet<string> taken = new(StringComparer.Ordinal);
    private readonly FileStream? file;
    private long repeats;

    public AppendedJournal(AppendedJournalOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Path is not { } path)
        {
            return;
        }

        if (File.Exists(path))
        {
            foreach (var line in File.ReadLines(path))
            {
                if (line.Split('\t') is ["taken", var id, ..])
                {
                    taken.Add(id);
                }
            }
        }

        file = new FileStream(path, FileMode.Append, FileAccess.Write, FileShare.Read);
    }

    /// <summary>Actions taken, over this journal's life (the lines in its file, or since start without one).</summary>
    public int Taken
    {
        get
        {
            lock (taken)
            {
                return taken.Count;
            }
        }
    }

    /// <summary>Actions dropped since start because their id was taken before.</summary>
    public long Repeats => Interlocked.Read(ref repeats);

    /// <inheritdoc />
    public async Task HandleAsync(Appended message, AfterCommitContext context, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(message);
        ArgumentNullException.ThrowIfNull(context);
        await gate.WaitAsync(cancellationToken);
        try
        {
            bool first;
            lock (taken)
            {
                first = taken.Add(context.Id);
            }

            if (!first)
            {
                Interlocked.Increment(ref repeats);
            }

            if (file is not null)
            {
                var line = string.Create(CultureInfo.InvariantCulture, $"{(first ? "taken" : "repeat")}\t{context.Id}\t{message.Tid}\t{message.List.Key}\n");
                await file.WriteAsync(Encoding.UTF8.GetBytes(line), CancellationToken.None);
                file.Flush(flushToDisk: true);
            }
        }
        finally
        {
            gate.Release();
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        file?.Dispose();
        gate.Dispose();
    }
}
