namespace Snapper.Reconnaissance;

/// <summary>
/// Client side: the placement of a reconnaissance's start context, which is never placed in a
/// batch. A body that reads its tid or batch gets <see cref="StartNotPlacedException"/>: its call
/// site is then neither reconnoitred nor placed on send (<c>ActContention.PlacesUpFront</c>).
/// </summary>
internal sealed class ReconnaissanceStart : IPlacedOnSend
{
    public static ReconnaissanceStart Instance { get; } = new();

    private ReconnaissanceStart()
    {
    }

    public TxnContext? Placed => null;
}
