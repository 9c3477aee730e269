namespace Snapper;

/// <summary>
/// Client side: the placement of a start context that is placed in a batch only as its call is
/// sent (a promoted PACT that declares the actors its call names). Until then the context has no
/// tid or batch; once placed, it reads them from the context the call was sent with.
/// </summary>
internal interface IPlacedOnSend
{
    /// <summary>The context the call was sent with; null until it is sent.</summary>
    TxnContext? Placed { get; }
}
