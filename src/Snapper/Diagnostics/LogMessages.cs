using Microsoft.Extensions.Logging;

namespace Snapper.Diagnostics;

/// <summary>Snapper's log messages, source-generated.</summary>
internal static partial class LogMessages
{
    [LoggerMessage(EventId = 1, Level = LogLevel.Error, Message = "Log {Log} failed to persist a group of {Count} record(s)")]
    public static partial void LogWriteFailed(ILogger logger, Exception exception, string log, int count);

    [LoggerMessage(EventId = 2, Level = LogLevel.Debug, Message = "ACT {Tid} aborted ({Reason}): {Detail}")]
    public static partial void ActAborted(ILogger logger, long tid, AbortReason reason, string detail);

    [LoggerMessage(EventId = 3, Level = LogLevel.Warning, Message = "ACT {Tid} is committed but participant {Actor} did not take the Commit; it asks the root for the outcome once its record is past the deadline")]
    public static partial void CommitDeliveryFailed(ILogger logger, Exception exception, long tid, ActorId actor);

    [LoggerMessage(EventId = 5, Level = LogLevel.Information, Message = "PACT abort cascade sealed by coordinator {Coordinator} ended: batches through bid {Through} resolved")]
    public static partial void PactCascade(ILogger logger, string coordinator, long through);

    [LoggerMessage(EventId = 7, Level = LogLevel.Debug, Message = "PACT {Tid} of batch {Bid} aborted alone: coordinator {Coordinator} found its writes unread everywhere")]
    public static partial void PactAbortedAlone(ILogger logger, string coordinator, long tid, long bid);

    [LoggerMessage(EventId = 8, Level = LogLevel.Debug, Message = "PACT {Tid} of batch {Bid} aborted after its writes were read: coordinator {Coordinator} aborts the whole batch")]
    public static partial void PactAbortTakesBatch(ILogger logger, string coordinator, long tid, long bid);

    [LoggerMessage(EventId = 44, Level = LogLevel.Warning, Message = "Actor {Actor} could not log the state of batch {Bid} without the writes of aborted PACT {Tid}; the whole batch aborts")]
    public static partial void UndoNotLogged(ILogger logger, Exception exception, ActorId actor, long tid, long bid);

    [LoggerMessage(EventId = 6, Level = LogLevel.Information, Message = "Recovered the committed state of {Actors} actor(s) from {Records} log record(s); tids resume after {MaxTid}")]
    public static partial void Recovered(ILogger logger, int actors, int records, long maxTid);

    [LoggerMessage(EventId = 40, Level = LogLevel.Warning, Message = "A protocol message to actor {Actor} failed")]
    public static partial void DeliveryFailed(ILogger logger, Exception exception, ActorId actor);

    [LoggerMessage(EventId = 41, Level = LogLevel.Warning, Message = "Coordinator {From} could not pass the token to {To}; it keeps it and tries again")]
    public static partial void TokenPassFailed(ILogger logger, Exception exception, string from, string to);

    [LoggerMessage(EventId = 153, Level = LogLevel.Information, Message = "Coordinator {To} is out of the ring and did not take the token from {From}: it goes along the newest view")]
    public static partial void TokenPassRefused(ILogger logger, string from, string to);

    [LoggerMessage(EventId = 45, Level = LogLevel.Information, Message = "Coordinator {Coordinator} got pass {Pass} of the token again (its sender had passed it again after no answer came); it is ignored")]
    public static partial void TokenPassRepeated(ILogger logger, string coordinator, long pass);

    [LoggerMessage(EventId = 42, Level = LogLevel.Warning, Message = "A message from {From} to coordinator {To} failed")]
    public static partial void CoordinatorMessageFailed(ILogger logger, Exception exception, string from, string to);

    [LoggerMessage(EventId = 43, Level = LogLevel.Warning, Message = "Silo {Silo} could not leave the coordinator ring cleanly")]
    public static partial void RingLeaveFailed(ILogger logger, Exception exception, string silo);

    [LoggerMessage(EventId = 46, Level = LogLevel.Warning, Message = "Silo {Silo} got no answer in time to joining the coordinator ring ({Elapsed} so far); it asks again")]
    public static partial void RingJoinSlow(ILogger logger, string silo, TimeSpan elapsed);

    [LoggerMessage(EventId = 50, Level = LogLevel.Information, Message = "Checkpoint {Round}: {Silos} silo(s) read {Records} log record(s) and wrote {States} state(s) and {Decisions} decision(s) in their place")]
    public static partial void CheckpointDone(ILogger logger, long round, int silos, long records, long states, long decisions);

    [LoggerMessage(EventId = 51, Level = LogLevel.Warning, Message = "Checkpoint {Round} was given up; the logs keep every record until a later round")]
    public static partial void CheckpointFailed(ILogger logger, Exception exception, long round);

    [LoggerMessage(EventId = 60, Level = LogLevel.Warning, Message = "Silo {Silo} left the cluster; the ring fails it over")]
    public static partial void SiloDeparted(ILogger logger, string silo);

    [LoggerMessage(EventId = 61, Level = LogLevel.Warning, Message = "The failover of silo {Silo} could not be started or finished; trying again")]
    public static partial void FailoverFailed(ILogger logger, Exception exception, string silo);

    [LoggerMessage(EventId = 62, Level = LogLevel.Information, Message = "Failover of silo {Silo} sealed here through bid {Through}; {Committed} committed batch(es) in the logs")]
    public static partial void FailoverSealed(ILogger logger, string silo, long through, int committed);

    [LoggerMessage(EventId = 63, Level = LogLevel.Warning, Message = "Failover of silo {Silo} done in {Elapsed}: {Unresolved} batch(es) of the survivors were unresolved at the halt (the undecided ones aborted); the ring re-formed with {Members} coordinator(s) and a new token from tid {Through}")]
    public static partial void FailoverDone(ILogger logger, string silo, TimeSpan elapsed, int unresolved, int members, long through);

    [LoggerMessage(EventId = 64, Level = LogLevel.Warning, Message = "Failover of silo {Silo}: batches of the survivors were still unresolved after {Waited}; the ring goes on")]
    public static partial void FailoverUnresolved(ILogger logger, string silo, TimeSpan waited);

    [LoggerMessage(EventId = 65, Level = LogLevel.Error, Message = "Actor {Actor}: ACT {Tid} committed a change to state version {Version} that a silo which died logged, but the version it changes is not the committed one ({Committed}); the change is not applied")]
    public static partial void UndecidedDeltaWithoutBase(ILogger logger, ActorId actor, long tid, long version, long committed);

    [LoggerMessage(EventId = 66, Level = LogLevel.Warning, Message = "The commit of batch {Bid} could not be announced to {Relay}; that silo's actors ask the coordinator once they have waited")]
    public static partial void BatchCommitRelayFailed(ILogger logger, Exception exception, string relay, long bid);

    [LoggerMessage(EventId = 67, Level = LogLevel.Warning, Message = "Coordinator {Coordinator} could not say whether batch {Bid} has resolved; asked again later")]
    public static partial void BatchOutcomeUnknown(ILogger logger, Exception exception, string coordinator, long bid);

    [LoggerMessage(EventId = 68, Level = LogLevel.Error, Message = "What was to follow a record's write in log '{Log}' failed")]
    public static partial void LogCallbackFailed(ILogger logger, Exception exception, string log);

    [LoggerMessage(EventId = 69, Level = LogLevel.Error, Message = "Actor {Actor} was told ACT {Tid} committed, but it holds no write prepared for it: the write was lost")]
    public static partial void CommitOfUnknownAct(ILogger logger, ActorId actor, long tid);

    [LoggerMessage(EventId = 70, Level = LogLevel.Warning, Message = "Silo {Silo} left before it handed over the state of {Actor}")]
    public static partial void HandOverLost(ILogger logger, Exception exception, string silo, ActorId actor);

    [LoggerMessage(EventId = 71, Level = LogLevel.Warning, Message = "Silo {Silo} did not answer the hand-over of {Actor}; asking again")]
    public static partial void HandOverRetried(ILogger logger, Exception exception, string silo, ActorId actor);

    // File log storage
    [LoggerMessage(EventId = 101, Level = LogLevel.Warning, Message = "Log segment {File} has a torn tail at offset {Offset}, a group never acknowledged ({Problem}); cut {Bytes} byte(s)")]
    public static partial void TailCut(ILogger logger, string file, long offset, long bytes, string problem);

    [LoggerMessage(EventId = 102, Level = LogLevel.Debug, Message = "Log {Log} started segment {File}")]
    public static partial void SegmentStarted(ILogger logger, string log, string file);

    [LoggerMessage(EventId = 103, Level = LogLevel.Information, Message = "Log {Log} deleted {Count} segment(s) before sequence {Sequence}")]
    public static partial void SegmentsDeleted(ILogger logger, string log, int count, long sequence);

    [LoggerMessage(EventId = 104, Level = LogLevel.Error, Message = "Log segment {File} could not be cut back to {Length} bytes after a failed append; a cut marker will tell recovery to")]
    public static partial void RollbackFailed(ILogger logger, Exception exception, string file, long length);

    [LoggerMessage(EventId = 105, Level = LogLevel.Warning, Message = "Log segment {File} has a cut marker: recovery cuts it back to {Length} bytes")]
    public static partial void CutMarkerWritten(ILogger logger, string file, long length);

    [LoggerMessage(EventId = 106, Level = LogLevel.Critical, Message = "Log segment {File} could neither be cut back to {Length} bytes nor marked for recovery to cut: records of a group reported as failed may be read back after a restart")]
    public static partial void CutMarkerFailed(ILogger logger, Exception exception, string file, long length);

    [LoggerMessage(EventId = 107, Level = LogLevel.Error, Message = "Log {Log} is stopped after a failed write and takes no appends until the silo restarts")]
    public static partial void LogStopped(ILogger logger, Exception exception, string log);

    [LoggerMessage(EventId = 130, Level = LogLevel.Critical, Message = "Log {Log} was fenced: this silo was declared dead and failed over, so nothing it appends counts any more; it stops")]
    public static partial void LogFenced(ILogger logger, Exception exception, string log);

    [LoggerMessage(EventId = 131, Level = LogLevel.Information, Message = "Fenced silo {Silo} (incarnation {Incarnation}) out of log {Log} before reading it for the failover")]
    public static partial void LogFencedForFailover(ILogger logger, string silo, string incarnation, string log);

    [LoggerMessage(EventId = 132, Level = LogLevel.Warning, Message = "Log {Log} was fenced for its earlier owner {Owner}; what that owner appended past {Through} never counted and is cut off as this silo claims the log")]
    public static partial void FenceCleared(ILogger logger, string log, string owner, string through);

    [LoggerMessage(EventId = 140, Level = LogLevel.Warning, Message = "After-commit action {Action} ({MessageType}) failed on attempt {Attempt}; tried again in {Backoff}")]
    public static partial void AfterCommitFailed(ILogger logger, Exception exception, string action, string messageType, int attempt, TimeSpan backoff);

    [LoggerMessage(EventId = 141, Level = LogLevel.Information, Message = "{Count} after-commit action(s) of committed transactions were owed in the logs and are delivered again")]
    public static partial void AfterCommitOwedAtStart(ILogger logger, int count);

    [LoggerMessage(EventId = 142, Level = LogLevel.Warning, Message = "The record that after-commit actions were delivered could not be logged; they will be delivered again after a restart")]
    public static partial void AfterCommitMarkFailed(ILogger logger, Exception exception);

    [LoggerMessage(EventId = 150, Level = LogLevel.Debug, Message = "PACT {Tid}'s call into {Callee} was not answered in {Waited}; the callee gave its answer again")]
    public static partial void LateAnswerRecovered(ILogger logger, long tid, ActorId callee, TimeSpan waited);

    [LoggerMessage(EventId = 152, Level = LogLevel.Debug, Message = "PACT {Tid}'s call into {Callee} had not reached it after {Waited}: refused ahead there, the PACT runs again")]
    public static partial void LateCallRefusedAhead(ILogger logger, long tid, ActorId callee, TimeSpan waited);

    [LoggerMessage(EventId = 151, Level = LogLevel.Debug, Message = "PACT {Tid}'s late call into {Callee}: asking the callee for its answer failed; asked again later")]
    public static partial void LateAnswerNotAsked(ILogger logger, Exception exception, long tid, ActorId callee);

    [LoggerMessage(EventId = 161, Level = LogLevel.Warning, Message = "Checkpoint round {Round} kept {Actor}'s state in the log, not the state store: {Reason}")]
    public static partial void StateKeptInLog(ILogger logger, long round, ActorId actor, string reason);

    [LoggerMessage(EventId = 160, Level = LogLevel.Warning, Message = "The states of {Count} actor(s) that went could not be written to the state store; they rest in this silo's memory until their next activation")]
    public static partial void StatesNotStored(ILogger logger, Exception exception, int count);
}
