using Snapper.Hosting;

namespace ListAppend;

/// <summary>Registers the list-append actor with Snapper.</summary>
public static class ListAppendRegistration
{
    /// <summary>Adds <see cref="ListActor"/>.</summary>
    public static SnapperBuilder AddListAppend(this SnapperBuilder snapper) => snapper.AddActor<IListActor, ListActor>();
}
