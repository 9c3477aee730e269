namespace Snapper.Concurrency;

/// <summary>The lock a transaction holds on an actor under strict 2PL.</summary>
internal enum LockMode : byte
{
    None = 0,
    Read = 1,
    Write = 2,
}
