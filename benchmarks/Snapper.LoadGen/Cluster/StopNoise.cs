using Microsoft.Extensions.Logging;

namespace Snapper.LoadGen.Cluster;

/// <summary>
/// Orleans' and Snapper's log records that a silo's stop writes by the hundred, one per message or
/// grain, about one cause each: messages to grains already gone, and a stop that its host's bound
/// cut short. SiloHost and LoadGen's embedded silos count them once the stop begins instead of
/// writing them (<c>--verbose</c> writes them). Linked into SiloHost too.
/// </summary>
public static class StopNoise
{
    // A stopping silo deactivates its grains while messages to them are still coming in (its other
    // grains' calls, its gateway's clients): Orleans' messaging says, a line each, that it could not
    // forward or address them, its placement's retry policy (Polly) and its grain migration that no
    // silo is there to place them on, its runtime that a response found the messaging already
    // disposed (a call that ended after the stop's drain bound), and Snapper that a protocol
    // message to an actor failed (event 40) or an ACT's commit did not reach a participant (event
    // 3: the participant asks the ACT's root for the outcome, in its next activation or its
    // recovery). Their senders hear it as a failed call.
    public static bool IsUndeliverable(string category, EventId eventId) =>
        category.StartsWith("Orleans.Messaging", StringComparison.Ordinal)
        || category.StartsWith("Polly", StringComparison.Ordinal)
        || (category == "Orleans.Grain" && eventId.Id == MigrationDestinationError)
        || (category == "Orleans.Runtime.InsideRuntimeClient" && eventId.Id == ResponseSendFailed)
        || (category.StartsWith("Snapper.", StringComparison.Ordinal) && eventId.Id is SnapperDeliveryFailed or SnapperCommitDeliveryFailed);

    // The host's shutdown bound cancels a stop that is not done in time (SiloHost's design: what is
    // left is failed over from the logs, as after a crash). Orleans then says, a line each, that
    // grains did not deactivate promptly, how long the stage took, that the stop was canceled, and
    // that each grain it was moving could not be: one cause, which SiloHost says once.
    public static bool IsCutShort(string category, EventId eventId, Exception? exception) =>
        (category == "Orleans.Runtime.Silo" && eventId.Id == GrainsNotDeactivatedPromptly)
        || (category == "Orleans.Runtime.SiloLifecycleSubject" && eventId.Id == StopCanceled)
        || (category == "Orleans.Grain" && eventId.Id == MigrationFailed && exception is OperationCanceledException);

    // How long a stage of the stop took, when it took long: written whether or not the bound cut
    // the stop short, so it says nothing of that by itself.
    public static bool IsSlowStage(string category, EventId eventId) =>
        category == "Orleans.Runtime.SiloLifecycleSubject" && eventId.Id == StageStoppedSlowly;

    private const int GrainsNotDeactivatedPromptly = 1908313251; // Orleans: "Some grains failed to deactivate promptly."
    private const int StageStoppedSlowly = 100452; // Orleans: "'{Observer}' stopped in stage '{Stage}' in '{Elapsed}'."
    private const int StopCanceled = 724652102; // Orleans: "Lifecycle stop operations canceled at stage '{Stage}' by request."
    private const int MigrationFailed = 1946425930; // Orleans: "Failed to migrate activation '{Activation}'"
    private const int MigrationDestinationError = 186169153; // Orleans: "Error while selecting a migration destination"
    private const int ResponseSendFailed = 101531; // Orleans (IGC_SendResponseFailed): "Exception trying to send a response"
    private const int SnapperDeliveryFailed = 40; // Snapper: "A protocol message to actor {Actor} failed"
    private const int SnapperCommitDeliveryFailed = 3; // Snapper: "ACT {Tid} is committed but participant {Actor} did not take the Commit; ..."
}
