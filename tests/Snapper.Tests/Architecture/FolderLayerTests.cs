using Assembly = System.Reflection.Assembly;
using ArchUnitNET.Domain;
using ArchUnitNET.Fluent;
using ArchUnitNET.Fluent.Slices;
using ArchUnitNET.Loader;
using ArchUnitNET.xUnit;
using static ArchUnitNET.Fluent.ArchRuleDefinition;
using ArchitectureModel = ArchUnitNET.Domain.Architecture;

namespace Snapper.Tests.Architecture;

/// <summary>
/// The direction between the folders of src/Snapper (namespace = folder), lowest layer first. A
/// folder may use the folders of lower layers, never one of its own layer or a higher one; so no
/// two folders depend on each other. docs/architecture.md, "Folders", says why each sits where it does.
/// </summary>
public sealed class FolderLayerTests
{
    /// <summary>The layers, lowest first. "(root)" is <see cref="TransactionalActor{TState}"/>, the class users inherit.</summary>
    public static readonly string[][] Layers =
    [
        ["Configuration", "Diagnostics", "Serialization"], // options, log messages and metrics, state serializers
        ["Logging"],                                         // records, the log writer, storages
        ["AtRest"],                                          // the store of states at rest
        ["Protocol"],                                        // grain interfaces and messages between roles, abort reasons
        ["Grains", "Scheduling", "Concurrency", "Hybrid", "Outbox"], // Orleans plumbing; the local schedule; wait-die locks; the hybrid check; after-commit actions
        ["Recovery"],                                        // reading the logs; loading an activation
        ["State", "Failover", "Checkpointing"],              // an actor's state versions; a departed silo; checkpoints
        ["Coordination"],                                    // the token ring and batches
        ["Act"],                                             // the ACT engine and root
        ["Pact", "Reconnaissance"],                          // the PACT engine; promoted ACTs' reconnaissance runs
        ["Hosting", "(root)"],                               // AddSnapper and the client; the user base class
    ];

    private static readonly Assembly Snapper = typeof(TransactionalActor<>).Assembly;

    private static readonly ArchitectureModel Model = new ArchLoader().LoadAssemblies(Snapper).Build();

    [Fact]
    public void Each_folder_uses_only_the_folders_of_lower_layers() => CheckLayers(Model, Snapper);

    [Fact]
    public void No_folders_depend_on_each_other_in_a_cycle() =>
        SliceRuleDefinition.Slices().Matching("Snapper.(*)").Should().BeFreeOfCycles().Check(Model);

    [Fact]
    public void The_layer_rule_fails_on_a_reference_against_it()
    {
        // A type of this assembly placed in the Logging folder's namespace that uses the coordinator.
        var withOffender = new ArchLoader().LoadAssemblies(Snapper, typeof(global::Snapper.Logging.LayerOffender).Assembly).Build();

        var failure = Assert.ThrowsAny<Exception>(() => CheckLayers(withOffender, Snapper, typeof(global::Snapper.Logging.LayerOffender).Assembly));

        Assert.Contains("LayerOffender", failure.Message, StringComparison.Ordinal);
        Assert.Contains("Snapper.Coordination", failure.Message, StringComparison.Ordinal);
    }

    private static void CheckLayers(ArchitectureModel model, params Assembly[] assemblies)
    {
        for (var layer = 0; layer < Layers.Length; layer++)
        {
            foreach (var folder in Layers[layer])
            {
                var forbidden = Layers[layer].Where(f => f != folder).Concat(Layers.Skip(layer + 1).SelectMany(l => l)).ToArray();
                if (forbidden.Length == 0)
                {
                    continue;
                }

                Types().That().Are(InFolder(folder, assemblies))
                    .Should().NotDependOnAny(InAnyFolder(forbidden, assemblies))
                    .Because($"{folder} is in layer {layer + 1}, and uses only folders of lower layers (FolderLayerTests.Layers)")
                    .Check(model);
            }
        }
    }

    private static IObjectProvider<IType> InFolder(string folder, Assembly[] assemblies) => InAnyFolder([folder], assemblies);

    // Types of the given assemblies in those folders' namespaces (and their sub-namespaces); the
    // root folder is the user base class, since the root namespace also holds the public API.
    private static IObjectProvider<IType> InAnyFolder(string[] folders, Assembly[] assemblies)
    {
        var namespaces = folders.Where(f => f != "(root)").Select(f => f == "Hosting" ? @"Snapper\.Hosting|Orleans\.Hosting" : $@"Snapper\.{f}").ToArray();
        var pattern = $"^({string.Join('|', namespaces)})(\\..*)?$";
        var inNamespaces = Types().That().ResideInNamespaceMatching(pattern).And().ResideInAssembly(assemblies[0], assemblies[1..]);
        return folders.Contains("(root)")
            ? Types().That().ResideInNamespaceMatching(pattern).Or().HaveFullName(typeof(TransactionalActor<>).FullName!).As(string.Join(", ", folders))
            : inNamespaces.As(string.Join(", ", folders));
    }
}
