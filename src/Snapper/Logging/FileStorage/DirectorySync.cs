using System.Runtime.InteropServices;
using System.Text;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// Makes a directory's entries durable, and new directories with them. On POSIX systems a new file survives a power loss only once
/// its directory is fsynced too; fsyncing the file alone is not enough. .NET cannot open a directory
/// as a file, hence the direct calls into libc.
/// </summary>
internal static partial class DirectorySync
{
    private const int ReadOnly = 0; // O_RDONLY, 0 on Linux and macOS
    private const int InvalidArgument = 22; // EINVAL on Linux and macOS

    /// <summary>Creates <paramref name="directory"/> and its missing parents, each made durable in its own parent.</summary>
    public static void Create(string directory)
    {
        // The folders about to be created, so their parents can be fsynced after.
        var created = new List<string>();
        for (var d = directory; d is not null && !Directory.Exists(d); d = Path.GetDirectoryName(d))
        {
            created.Add(d);
        }

        Directory.CreateDirectory(directory);
        foreach (var d in created)
        {
            Flush(Path.GetDirectoryName(d)!);
        }
    }

    /// <summary>Flushes the entries of <paramref name="directory"/> to disk.</summary>
    public static void Flush(string directory)
    {
        // NTFS journals its metadata and Windows has no directory fsync; nothing to do there.
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        var fd = NativeMethods.open(Encoding.UTF8.GetBytes(directory + "\0"), ReadOnly);
        if (fd < 0)
        {
            throw Failure("open", directory);
        }

        try
        {
            // Some file systems cannot fsync a directory (EINVAL); there it is not needed.
            if (NativeMethods.fsync(fd) != 0 && Marshal.GetLastPInvokeError() != InvalidArgument)
            {
                throw Failure("fsync", directory);
            }
        }
        finally
        {
            _ = NativeMethods.close(fd);
        }
    }

    private static IOException Failure(string call, string directory)
    {
        var errno = Marshal.GetLastPInvokeError();
        return new IOException($"{call} of directory '{directory}' failed: {Marshal.GetPInvokeErrorMessage(errno)} (errno {errno}).");
    }

    private static class NativeMethods
    {
        [DllImport("libc", SetLastError = true)]
        public static extern int open(byte[] path, int flags);

        [DllImport("libc", SetLastError = true)]
        public static extern int fsync(int fd);

        [DllImport("libc", SetLastError = true)]
        public static extern int close(int fd);
    }
}
