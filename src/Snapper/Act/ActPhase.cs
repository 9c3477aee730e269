namespace Snapper.Act;

/// <summary>Where a transaction is in its life, as seen by the silo that started it.</summary>
internal enum ActPhase : byte
{
    /// <summary>Executing user code; actors may be called and states read.</summary>
    Running = 1,

    /// <summary>Two-phase commit or abort under way; no more calls are accepted.</summary>
    Completing = 2,
}
