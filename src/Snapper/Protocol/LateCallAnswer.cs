namespace Snapper.Protocol;

/// <summary>
/// An actor's answer to <see cref="ISnapperParticipant.PactCallAnswer"/> (callee → the silo of a
/// PACT's caller whose answer is late): the answer the callee gave the caller's call of that PACT,
/// or <see cref="NotAnswered"/> when it has none to give (the call has not arrived or is still
/// running, it came more than once, or its batch has already resolved there).
/// </summary>
/// <param name="Answered">True if the call ran here and <see cref="Result"/> or <see cref="Failure"/> is what it answered.</param>
/// <param name="Result">What the call returned (null for a method without a result).</param>
/// <param name="Failure">What the call threw, which its caller would have read as the answer.</param>
/// <param name="RefusedAhead">True if the call had not reached the callee, which refused it ahead (<see cref="Failure"/> says so) when the caller let it.</param>
[GenerateSerializer]
internal sealed record LateCallAnswer([property: Id(0)] bool Answered, [property: Id(1)] object? Result, [property: Id(2)] Exception? Failure, [property: Id(3)] bool RefusedAhead = false)
{
    /// <summary>Nothing to give: the caller waits on, and asks again later.</summary>
    public static readonly LateCallAnswer NotAnswered = new(false, null, null);
}
