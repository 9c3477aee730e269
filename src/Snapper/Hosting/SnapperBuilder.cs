using Microsoft.Extensions.DependencyInjection;
using Snapper.Configuration;

namespace Snapper.Hosting;

/// <summary>What <c>AddSnapper</c> configures: the options.</summary>
public sealed class SnapperBuilder
{
    internal SnapperBuilder()
    {
    }

    internal List<Action<SnapperOptions>> Configurations { get; } = [];

    /// <summary>The silo's services, for the handlers registered here; null on a client.</summary>
    internal IServiceCollection? Services { get; init; }

    /// <summary>Sets options; validated when the silo starts.</summary>
    public SnapperBuilder Configure(Action<SnapperOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        Configurations.Add(configure);
        return this;
    }

    /// <summary>
    /// Registers <typeparamref name="THandler"/> (a singleton) for the after-commit actions of type
    /// <typeparamref name="TMessage"/> that actors register with <c>AfterCommit</c>. Register it on
    /// every silo: an action is handled on the silo that decided its transaction.
    /// </summary>
    public SnapperBuilder AddAfterCommitHandler<TMessage, THandler>()
        where THandler : class, IAfterCommitHandler<TMessage>
    {
        var services = Services ?? throw new InvalidOperationException("After-commit handlers run on silos: register them in the silo's AddSnapper, not a client's.");
        services.AddSingleton<IAfterCommitHandler<TMessage>, THandler>();
        return this;
    }
}
