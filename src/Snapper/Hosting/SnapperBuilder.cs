using Snapper.Actors;

namespace Snapper.Hosting;

/// <summary>What <c>AddSnapper</c> configures: the actor types and the options.</summary>
public sealed class SnapperBuilder
{
    internal SnapperBuilder(ActorRegistry registry) => Registry = registry;

    internal ActorRegistry Registry { get; }

    internal List<Action<SnapperOptions>> Configurations { get; } = [];

    /// <summary>Registers the implementation of an actor interface.</summary>
    public SnapperBuilder AddActor<TInterface, TImplementation>()
        where TInterface : IActor
        where TImplementation : class, TInterface
    {
        Registry.Add(typeof(TInterface), typeof(TImplementation));
        return this;
    }

    /// <summary>Sets options; validated when the host starts.</summary>
    public SnapperBuilder Configure(Action<SnapperOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        Configurations.Add(configure);
        return this;
    }
}
