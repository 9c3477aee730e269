using Orleans.Runtime.Services;

namespace Snapper.Recovery;

/// <summary>This silo's way to each silo's <see cref="IStateHandoff"/>, by its address.</summary>
internal sealed class StateHandoffs(IServiceProvider services) : GrainServiceClient<IStateHandoff>(services)
{
    /// <summary>Silo <paramref name="silo"/>'s hand-off service.</summary>
    public IStateHandoff At(SiloAddress silo) => GetGrainService(silo);
}
