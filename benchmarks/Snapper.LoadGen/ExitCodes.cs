namespace Snapper.LoadGen;

/// <summary>The CLI's exit codes, so scripts can tell a bad command line from a bad result.</summary>
public static class ExitCodes
{
    /// <summary>Every mode ran to the end and, with --verify, kept the money.</summary>
    public const int Ok = 0;

    /// <summary>Verification failed, the silo failed, a run hung, or the JSON could not be written.</summary>
    public const int Failure = 1;

    /// <summary>The command line was wrong or asked for something not built yet.</summary>
    public const int Usage = 2;

    /// <summary>Ctrl+C stopped the run before every mode finished (128 + SIGINT, as shells report it).</summary>
    public const int Interrupted = 130;
}
