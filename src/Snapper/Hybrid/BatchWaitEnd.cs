namespace Snapper.Hybrid;

/// <summary>How an ACT's wait for a PACT batch ended (<see cref="BatchWait"/>).</summary>
internal enum BatchWaitEnd
{
    /// <summary>The batch is ready: the ACT goes on.</summary>
    Ready,

    /// <summary>A batch up to the awaited one is behind the ACT elsewhere: waiting could only end in a cycle (§4.4.3).</summary>
    Doomed,

    /// <summary>The deadlock timeout passed first (§4.4.2).</summary>
    TimedOut,
}
