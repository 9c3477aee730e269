using System.Runtime.InteropServices;

namespace Snapper.Logging.FileStorage;

/// <summary>
/// One writer per log: an exclusive lock on <c>{log folder}/writer.lock</c>, taken when a storage
/// first uses the log for writing (a silo does as it starts) and held until the storage is
/// disposed. The OS releases it when the process ends, however it ends, so a crash never leaves a
/// log locked; a second writer, in another process or in this one, fails at once
/// (<see cref="LogHeldException"/>). Readers of other silos' logs never take it. The file is never
/// deleted: a lock on a deleted file would not exclude a writer that locks its successor.
/// </summary>
/// <remarks>
/// On Windows the lock is the file's share mode. On Unix it is <c>flock(LOCK_EX | LOCK_NB)</c>,
/// which .NET takes for <see cref="FileShare.None"/> and which is taken here too, since .NET skips
/// its own when <c>DOTNET_SYSTEM_IO_DISABLEFILELOCKING</c> is set. An flock belongs to the open
/// file, so two opens in one process exclude each other as two processes do.
/// </remarks>
internal sealed class LogLock : IDisposable
{
    public const string FileName = "writer.lock";

    private const int Exclusive = 2; // LOCK_EX, on Linux and macOS
    private const int NonBlocking = 4; // LOCK_NB

    private readonly FileStream file;

    private LogLock(FileStream file) => this.file = file;

    /// <summary>Takes the lock of <paramref name="log"/>, whose folder <paramref name="directory"/> must exist (another lock of the log: <paramref name="fileName"/>).</summary>
    public static LogLock Take(string log, string directory, string fileName = FileName)
    {
        var path = Path.Combine(directory, fileName);
        var root = Path.GetDirectoryName(directory) ?? directory;
        FileStream file;
        try
        {
            file = new FileStream(path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None);
        }
        catch (IOException e) when (IsHeld(e.HResult))
        {
            throw new LogHeldException(log, root, e);
        }

        if (!OperatingSystem.IsWindows() && NativeMethods.flock(file.SafeFileHandle.DangerousGetHandle().ToInt32(), Exclusive | NonBlocking) != 0)
        {
            var errno = Marshal.GetLastPInvokeError();
            file.Dispose();
            var failure = new IOException($"flock of '{path}' failed: {Marshal.GetPInvokeErrorMessage(errno)} (errno {errno}).", errno);
            throw IsHeld(errno) ? new LogHeldException(log, root, failure) : failure;
        }

        return new LogLock(file);
    }

    /// <summary>Releases the lock (closing the file is what releases it).</summary>
    public void Dispose() => file.Dispose();

    // EWOULDBLOCK (Linux, macOS) as .NET reports a held flock; a sharing or lock violation on Windows.
    private static bool IsHeld(int code) =>
        OperatingSystem.IsWindows() ? (code & 0xFFFF) is 32 or 33 : code == (OperatingSystem.IsMacOS() ? 35 : 11);

    private static class NativeMethods
    {
        [DllImport("libc", SetLastError = true)]
        public static extern int flock(int fd, int operation);
    }
}
