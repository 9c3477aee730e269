namespace Snapper;

/// <summary>
/// Marker for actor interfaces. Plain actors (used for the non-transactional baseline) derive from
/// this directly; transactional actors derive from <see cref="ITransactionalActor"/>.
/// </summary>
public interface IActor
{
}
