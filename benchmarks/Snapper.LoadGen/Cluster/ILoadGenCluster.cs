namespace Snapper.LoadGen.Cluster;

/// <summary>The Orleans cluster a run drives: silos started in this process, or running SiloHosts reached as a client.</summary>
public interface ILoadGenCluster : IAsyncDisposable
{
    /// <summary>Where transactions and plain calls are issued.</summary>
    ISnapperClient Client { get; }

    /// <summary>Grain references for modes that call grains directly rather than through Snapper (orleans-txn).</summary>
    IGrainFactory Grains { get; }

    /// <summary><c>embedded</c> (silos in this process) or <c>external</c> (<c>--cluster</c>).</summary>
    string Kind { get; }

    /// <summary>The file logger's directory, when this process runs the silos with <c>--logger file</c>.</summary>
    string? LogDirectory { get; }

    /// <summary>Bytes the file logger has on disk now (0 without one).</summary>
    long LogBytes();

    /// <summary>The active silos, as the cluster's membership says.</summary>
    Task<int> CountSilos();

    /// <summary>
    /// Null while the cluster can be reached; else which gateways went (a client of
    /// <c>--cluster</c> connected to none of them). Silos in this process never go this way.
    /// </summary>
    string? Lost => null;
}
