namespace Snapper.Coordination;

/// <summary>
/// Coordinator → client: this coordinator is out of the ring (its silo is stopping, or was declared
/// dead) and will never hold the token again, so the PACT or tid request waiting here took no tid.
/// Never reaches user code: the client asks another coordinator, from a fresh view of the ring.
/// </summary>
[GenerateSerializer]
internal sealed class CoordinatorLeftRingException : Exception
{
    public CoordinatorLeftRingException(string coordinator, string why)
        : base($"coordinator {coordinator} is out of the ring ({why}); the request took no tid and goes to another coordinator")
    {
    }
}
