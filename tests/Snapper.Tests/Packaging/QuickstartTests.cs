using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.Packaging;

/// <summary>
/// Snapper as an Orleans app meets it: the packages `dotnet pack` makes, referenced by
/// PackageReference from a local folder by samples/Quickstart, which is outside the solution.
/// </summary>
public sealed class QuickstartTests
{
    private static readonly TimeSpan Patience = TimeSpan.FromMinutes(5);

    [Fact]
    public async Task The_quickstart_restores_Snapper_from_the_packed_folder_and_runs_both_transfers()
    {
        var root = RepositoryPaths.Root();
        var artifacts = Path.Combine(root, "artifacts");

        // The two packages README's `dotnet pack -c Release -o artifacts` makes (packed one by one:
        // packing the solution would rebuild this test's own project while it runs).
        foreach (var project in new[] { "src/Snapper.Abstractions/Snapper.Abstractions.csproj", "src/Snapper/Snapper.csproj" })
        {
            var (packed, packOutput) = await Dotnet(root, "pack", project, "-c", "Release", "-o", artifacts, "-nodeReuse:false", "-warnaserror");
            Assert.True(packed == 0, packOutput);
            Assert.DoesNotMatch(@"warning [A-Z]+[0-9]+", packOutput);
        }

        // A fresh package folder: the Snapper packages must come from artifacts, not from a cache
        // holding an older build of the same version.
        var packages = Directory.CreateTempSubdirectory("snapper-quickstart-packages-");
        try
        {
            var quickstart = Path.Combine(root, "samples", "Quickstart");
            var (restored, restoreOutput) = await Dotnet(quickstart, "restore", "--packages", packages.FullName);
            Assert.True(restored == 0, restoreOutput);
            Assert.True(File.Exists(Path.Combine(packages.FullName, "snapper", "0.1.0", "snapper.0.1.0.nupkg")), "Snapper did not come from the packed folder");

            var (exit, output) = await Dotnet(quickstart, "run", "-c", "Release", "--no-restore");
            Assert.True(exit == 0, output);
            Assert.Contains("ACT  alice -> bob 30: committed", output, StringComparison.Ordinal);
            Assert.Contains("PACT bob -> alice 10: committed", output, StringComparison.Ordinal);
            Assert.Contains("ACT  alice -> bob 1000: aborted (User: insufficient funds)", output, StringComparison.Ordinal);
            Assert.Contains("alice 80, bob 120", output, StringComparison.Ordinal);
        }
        finally
        {
            packages.Delete(recursive: true);
        }
    }

    [Fact]
    public void READMEs_example_is_the_quickstarts_code()
    {
        var root = RepositoryPaths.Root();
        var readme = Normalize(File.ReadAllText(Path.Combine(root, "README.md")));
        foreach (var file in new[] { "Account.cs", "Program.cs" })
        {
            var code = Normalize(File.ReadAllText(Path.Combine(root, "samples", "Quickstart", file)));
            Assert.True(readme.Contains(code, StringComparison.Ordinal), $"README.md does not show samples/Quickstart/{file} as it is");
        }
    }

    private static string Normalize(string text) => text.Replace("\r\n", "\n", StringComparison.Ordinal).Trim();

    private static async Task<(int Exit, string Output)> Dotnet(string directory, params string[] args)
    {
        var (exit, output) = await ChildProcess.RunAsync("dotnet", args, Patience, directory);
        return (exit, $"dotnet {string.Join(' ', args)}:\n{output}");
    }
}
