namespace Snapper.LoadGen.Options;

/// <summary>What the command line asked for: the usage text, or a run with these options.</summary>
/// <param name="ShowHelp">True for <c>--help</c>: print <see cref="ArgParser.Usage"/> and exit 0.</param>
/// <param name="Options">The run's options; the defaults when <paramref name="ShowHelp"/> is true.</param>
public sealed record ParseResult(bool ShowHelp, LoadGenOptions Options);
