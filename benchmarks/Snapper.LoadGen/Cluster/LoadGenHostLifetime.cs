using Microsoft.Extensions.Hosting;

namespace Snapper.LoadGen.Cluster;

/// <summary>
/// Replaces the generic host's ConsoleLifetime, which would take over Ctrl+C and stop the silo or the client
/// under the load loops. The load generator handles Ctrl+C itself: stop issuing, drain, report.
/// </summary>
internal sealed class LoadGenHostLifetime : IHostLifetime
{
    public Task WaitForStartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
