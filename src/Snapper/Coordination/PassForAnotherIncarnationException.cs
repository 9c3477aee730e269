namespace Snapper.Coordination;

/// <summary>
/// Coordinator → the coordinator passing it the token: the pass's view names another incarnation
/// of this coordinator's silo (one that died, which this silo replaced under its name). Not taken,
/// but unlike <see cref="CoordinatorLeftRingException"/> it says nothing of whether the dead
/// incarnation took the pass: the sender tries the same coordinator again, as for an unanswered
/// pass, until the failover of the dead incarnation halts it.
/// </summary>
[GenerateSerializer]
internal sealed class PassForAnotherIncarnationException : Exception
{
    public PassForAnotherIncarnationException(string coordinator, long viewEpoch)
        : base($"coordinator {coordinator} did not take a pass whose view {viewEpoch} names an earlier incarnation of its silo")
    {
    }
}
