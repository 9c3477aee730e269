namespace Snapper;

/// <summary>
/// Marker for actor interfaces, which are Orleans grain interfaces: an actor interface also derives
/// from one of Orleans' key interfaces (<c>IGrainWithIntegerKey</c>, <c>IGrainWithStringKey</c> or
/// <c>IGrainWithGuidKey</c>), and its implementation is an ordinary grain class. Plain actors (the
/// non-transactional baseline) derive from this directly; transactional actors derive from
/// <see cref="ITransactionalActor"/>.
/// </summary>
public interface IActor : IGrain
{
}
