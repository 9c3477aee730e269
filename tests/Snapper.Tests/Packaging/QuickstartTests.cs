using System.IO.Compression;
using System.Xml.Linq;
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
    public async Task The_quickstart_restores_Snapper_from_the_packed_folder_and_prints_READMEs_four_lines()
    {
        var root = RepositoryPaths.Root();
        var artifacts = Path.Combine(root, "artifacts");

        // The packages README's `dotnet pack -c Release -o artifacts` makes (packed one by one:
        // packing the solution would rebuild this test's own project while it runs).
        foreach (var (project, id) in Packages)
        {
            var (packed, packOutput) = await Dotnet(root, "pack", project, "-c", "Release", "-o", artifacts, "-nodeReuse:false", "-warnaserror");
            Assert.True(packed == 0, packOutput);
            Assert.DoesNotMatch(@"warning [A-Z]+[0-9]+", packOutput);
            AssertMetadata(Path.Combine(artifacts, $"{id}.0.1.0.nupkg"), id);
        }

        // A fresh package folder: the Snapper packages must come from artifacts, not from a cache
        // holding an older build of the same version.
        var packages = Directory.CreateTempSubdirectory("snapper-quickstart-packages-");
        try
        {
            var quickstart = Path.Combine(root, "samples", "Quickstart");
            var (restored, restoreOutput) = await Dotnet(quickstart, "restore", "--packages", packages.FullName);
            Assert.True(restored == 0, restoreOutput);
            foreach (var id in new[] { "snappertransactions", "snappertransactions.abstractions" })
            {
                Assert.True(File.Exists(Path.Combine(packages.FullName, id, "0.1.0", $"{id}.0.1.0.nupkg")), $"{id} did not come from the packed folder");
            }

            var (exit, stdout, stderr) = await ChildProcess.RunSplitAsync("dotnet", ["run", "-c", "Release", "--no-restore"], Patience, quickstart);
            Assert.True(exit == 0, $"{stdout}{stderr}");
            Assert.Equal(ReadmesOutput(root), stdout.Replace("\r\n", "\n", StringComparison.Ordinal).TrimEnd('\n'));
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

    private static readonly (string Project, string Id)[] Packages =
    [
        ("src/Snapper.Abstractions/Snapper.Abstractions.csproj", "SnapperTransactions.Abstractions"),
        ("src/Snapper/Snapper.csproj", "SnapperTransactions"),
        ("src/Snapper.Logging.AzureTable/Snapper.Logging.AzureTable.csproj", "SnapperTransactions.Logging.AzureTable"),
    ];

    // What a user reads on the registry's page: the id, a description, tags, a license, a readme.
    private static void AssertMetadata(string nupkg, string id)
    {
        Assert.True(File.Exists(nupkg), $"{nupkg} was not made");
        using var archive = ZipFile.OpenRead(nupkg);
        var nuspec = archive.Entries.Single(e => e.FullName.EndsWith(".nuspec", StringComparison.Ordinal));
        using var reader = new StreamReader(nuspec.Open());
        var metadata = XDocument.Load(reader).Root!.Elements().Single(e => e.Name.LocalName == "metadata");
        string Field(string name) => metadata.Elements().SingleOrDefault(e => e.Name.LocalName == name)?.Value ?? "";
        Assert.Equal(id, Field("id"));
        Assert.True(Field("description").Length > 60, $"{id}: description '{Field("description")}'");
        Assert.Contains("orleans", Field("tags"), StringComparison.Ordinal);
        Assert.Contains("transactions", Field("tags"), StringComparison.Ordinal);
        Assert.Equal("MIT", Field("license"));
        Assert.Equal("README.md", Field("readme"));
        Assert.Contains(archive.Entries, e => e.FullName == "README.md");
    }

    // The block README shows under "It prints:".
    private static string ReadmesOutput(string root)
    {
        var readme = Normalize(File.ReadAllText(Path.Combine(root, "README.md")));
        var start = readme.IndexOf("It prints:\n\n```\n", StringComparison.Ordinal);
        Assert.True(start >= 0, "README has no \"It prints:\" block");
        start += "It prints:\n\n```\n".Length;
        return readme[start..readme.IndexOf("\n```", start, StringComparison.Ordinal)];
    }

    private static string Normalize(string text) => text.Replace("\r\n", "\n", StringComparison.Ordinal).Trim();

    private static async Task<(int Exit, string Output)> Dotnet(string directory, params string[] args)
    {
        var (exit, output) = await ChildProcess.RunAsync("dotnet", args, Patience, directory);
        return (exit, $"dotnet {string.Join(' ', args)}:\n{output}");
    }
}
