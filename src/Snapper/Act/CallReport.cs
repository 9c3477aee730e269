using Snapper.Protocol;

namespace Snapper.Act;

/// <summary>
/// Participant → its caller: what one call of an ACT did here (<see cref="Info"/>, the callee's
/// execution info) and how it failed, if it did. Returned by <c>ActParticipant.Invoke</c> instead
/// of thrown: the caller's filter still throws <see cref="Failure"/> into the user's code, but
/// Snapper's own layers pass it on as a value.
/// </summary>
internal readonly record struct CallReport(ExecutionInfo Info, Exception? Failure);
