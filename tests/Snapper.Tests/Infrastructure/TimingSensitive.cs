namespace Snapper.Tests.Infrastructure;

/// <summary>
/// Tests that measure a window of a second or two with the load driver: they run after the
/// parallel tests, alone, since a test host busy with silos can starve the driver's once-a-second
/// tick past the moment it decides in.
/// </summary>
[CollectionDefinition(Name, DisableParallelization = true)]
public sealed class TimingSensitive
{
    /// <summary>The collection's name, for <c>[Collection(TimingSensitive.Name)]</c>.</summary>
    public const string Name = "timing-sensitive";
}
