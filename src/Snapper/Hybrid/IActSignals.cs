using Snapper.Protocol;

namespace Snapper.Hybrid;

/// <summary>What a <see cref="RunningAct"/> tells other actors, as one-way messages from its root.</summary>
internal interface IActSignals
{
    /// <summary>Root → the root of <paramref name="holder"/>: batch <paramref name="bid"/> (on <paramref name="at"/>) is behind an ACT that waits for <paramref name="holder"/>'s lock, so behind it too.</summary>
    void BatchBehind(ActDependency holder, long bid, ActorId at);

    /// <summary>Root → <paramref name="participant"/>: ACT <paramref name="tid"/>'s wait there is doomed, batch <paramref name="behind"/> being behind the ACT on <paramref name="at"/>.</summary>
    void Doom(ActorId participant, long tid, long behind, ActorId at);
}
