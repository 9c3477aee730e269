namespace Snapper.Actors;

/// <summary>How the directory hands a new actor instance its identity and the runtime.</summary>
internal interface IActorBinding
{
    void Bind(ActorId id, SnapperRuntime runtime);
}
