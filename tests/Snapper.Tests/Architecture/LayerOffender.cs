namespace Snapper.Logging;

/// <summary>
/// A deliberate offender for <see cref="Tests.Architecture.FolderLayerTests"/>: a type in the
/// Logging folder's namespace (in the test assembly) that uses the coordinator, two layers up.
/// </summary>
internal static class LayerOffender
{
    public static string Key(Coordination.Coordinator coordinator) => coordinator.GetPrimaryKeyString();
}
