using System.Text;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// The files beside a log's segments that fence a silo incarnation declared dead out of its log
/// (<see cref="ILogStorage.FenceAsync"/>): <c>owner</c>, the incarnation that claimed the log last;
/// <c>fence</c>, the incarnation fenced and, once known, <see cref="Fence.Through"/>, the end of
/// what counts of its appends; and <c>fence.lock</c>, which a fencer and a claimant hold while they
/// change the other two. Each file is replaced whole, durably (written aside, fsynced, renamed,
/// the folder fsynced), so a crash leaves the old or the new one.
/// </summary>
/// <remarks>
/// <para>A shared folder cannot refuse a write, so the fence works with the writer: after each
/// group's fsync, and before anyone is told, the writer looks for a fence naming it
/// (<see cref="SegmentLog"/>). The fencer first writes the fence without an end, so from then on the
/// writer tells nobody anything it cannot prove counts; then it finds where the log's intact frames
/// end, and writes that as the end. A group ending there or before counts (the failover reads it);
/// one past it never does (readers stop there, and the next owner cuts it off).</para>
/// <para>What that needs of the file system: a file renamed into place by one process is seen by
/// another's next look, and bytes written by one are read by another once written. A local file
/// system gives both; a network file system that caches attributes may show the fence late, and
/// then a paused silo could acknowledge a group the failover did not read.</para>
/// </remarks>
internal static class LogFence
{
    private const string FenceFile = "fence";
    private const string OwnerFile = "owner";
    private const string LockFile = "fence.lock";
    private static readonly TimeSpan LockPatience = TimeSpan.FromSeconds(30);
    private static readonly TimeSpan LockPoll = TimeSpan.FromMilliseconds(20);

    /// <summary>A fence on a log: <paramref name="Owner"/> is fenced; what counts of its appends ends at <paramref name="Through"/> (null while the fence is being made).</summary>
    internal sealed record Fence(string Owner, LogPosition? Through);

    /// <summary>The path of <paramref name="directory"/>'s fence file, which writers look for after each group.</summary>
    public static string FencePath(string directory) => Path.Combine(directory, FenceFile);

    /// <summary>The fence on the log in <paramref name="directory"/>, or null.</summary>
    public static Fence? Read(string directory)
    {
        var lines = ReadLines(FencePath(directory));
        if (lines is null)
        {
            return null;
        }

        var owner = Value(lines, "owner") ?? throw new InvalidDataException($"Fence file '{FencePath(directory)}' names no owner.");
        var through = Value(lines, "through") is { } end ? LogPosition.Parse(end, FencePath(directory)) : (LogPosition?)null;
        return new Fence(owner, through);
    }

    /// <summary>Writes <paramref name="fence"/> durably.</summary>
    public static void Write(string directory, Fence fence) =>
        Replace(directory, FenceFile, fence.Through is { } through ? $"owner={fence.Owner}\nthrough={through}\n" : $"owner={fence.Owner}\n");

    /// <summary>Removes the fence durably (a new owner has cut what did not count).</summary>
    public static void Delete(string directory)
    {
        File.Delete(FencePath(directory));
        DirectorySync.Flush(directory);
    }

    /// <summary>Removes what lies past <paramref name="through"/>, durably: later segments, then the rest of its own.</summary>
    public static void CutAt(string log, string directory, LogPosition through)
    {
        try
        {
            foreach (var segment in SegmentFileName.List(directory).Where(s => s > through.Segment).Reverse())
            {
                File.Delete(SegmentFileName.PathOf(directory, segment));
            }

            var last = SegmentFileName.PathOf(directory, through.Segment);
            if (File.Exists(last))
            {
                using var stream = new FileStream(last, FileMode.Open, FileAccess.Write, FileShare.Read);
                if (stream.Length > through.Offset)
                {
                    stream.SetLength(through.Offset);
                    stream.Flush(flushToDisk: true);
                }
            }

            DirectorySync.Flush(directory);
        }
        catch (Exception e) when (e is IOException or UnauthorizedAccessException)
        {
            throw new IOException($"Log '{log}' could not be cut at its fence ({through}) in '{directory}': {e.Message}", e);
        }
    }

    /// <summary>The incarnation that claimed the log in <paramref name="directory"/> last, or null.</summary>
    public static string? ReadOwner(string directory) => ReadLines(Path.Combine(directory, OwnerFile)) is { } lines ? Value(lines, "owner") : null;

    /// <summary>Records <paramref name="owner"/> as the log's owner, durably.</summary>
    public static void WriteOwner(string directory, string owner) => Replace(directory, OwnerFile, $"owner={owner}\n");

    /// <summary>
    /// Holds the log's fence lock until disposed (a <see cref="LogLock"/> of its own file), so a
    /// fencer and a claimant never interleave. Waits for a holder that is changing the files (a
    /// short while), within a bound.
    /// </summary>
    public static async Task<IDisposable> LockAsync(string log, string directory, CancellationToken cancellationToken)
    {
        var deadline = DateTime.UtcNow + LockPatience;
        while (true)
        {
            try
            {
                return LogLock.Take(log, directory, LockFile);
            }
            catch (LogHeldException) when (DateTime.UtcNow < deadline)
            {
                await Task.Delay(LockPoll, cancellationToken).ConfigureAwait(false);
            }
            catch (LogHeldException e)
            {
                throw new IOException($"The fence lock of log '{log}' in '{directory}' stayed held for {LockPatience.TotalSeconds:0} s: a fencer or a starting silo holding it is stuck.", e);
            }
        }
    }

    private static string[]? ReadLines(string path)
    {
        try
        {
            return File.ReadAllLines(path);
        }
        catch (Exception e) when (e is FileNotFoundException or DirectoryNotFoundException)
        {
            return null;
        }
    }

    private static string? Value(string[] lines, string key) =>
        lines.Select(l => l.Split('=', 2)).FirstOrDefault(p => p.Length == 2 && p[0] == key)?[1];

    private static void Replace(string directory, string file, string text)
    {
        var path = Path.Combine(directory, file);
        var aside = path + ".tmp";
        using (var stream = new FileStream(aside, FileMode.Create, FileAccess.Write, FileShare.None))
        {
            stream.Write(Encoding.UTF8.GetBytes(text));
            stream.Flush(flushToDisk: true);
        }

        File.Move(aside, path, overwrite: true);
        DirectorySync.Flush(directory);
    }
}
