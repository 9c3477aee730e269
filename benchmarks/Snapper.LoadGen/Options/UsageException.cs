namespace Snapper.LoadGen.Options;

/// <summary>
/// The command line asks for something this build cannot do: an unknown flag, a bad value, a mode
/// or workload not built yet. The message names the flag or value; the CLI exits with code 2.
/// </summary>
public sealed class UsageException : Exception
{
    /// <summary>Creates the exception with a message naming the offending flag or value.</summary>
    public UsageException(string message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and its cause.</summary>
    public UsageException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates the exception with a generic message (for serializers and tooling).</summary>
    public UsageException()
        : base("Invalid command line.")
    {
    }
}
