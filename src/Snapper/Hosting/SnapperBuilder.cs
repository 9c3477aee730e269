using Snapper.Configuration;

namespace Snapper.Hosting;

/// <summary>What <c>AddSnapper</c> configures: the options.</summary>
public sealed class SnapperBuilder
{
    internal SnapperBuilder()
    {
    }

    internal List<Action<SnapperOptions>> Configurations { get; } = [];

    /// <summary>Sets options; validated when the silo starts.</summary>
    public SnapperBuilder Configure(Action<SnapperOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        Configurations.Add(configure);
        return this;
    }
}
