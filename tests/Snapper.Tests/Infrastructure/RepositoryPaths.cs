namespace Snapper.Tests.Infrastructure;

/// <summary>Where the repository is, for tests that read its README or build its samples.</summary>
public static class RepositoryPaths
{
    /// <summary>The folder holding Snapper.sln, above the test binaries.</summary>
    public static string Root()
    {
        var directory = new DirectoryInfo(AppContext.BaseDirectory);
        while (directory is not null && !File.Exists(Path.Combine(directory.FullName, "Snapper.sln")))
        {
            directory = directory.Parent;
        }

        return directory?.FullName ?? throw new InvalidOperationException("Snapper.sln not found above the test binaries.");
    }
}
