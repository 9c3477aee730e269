using Microsoft.Extensions.Hosting;

namespace Snapper.LoadGen.Silo;

/// <summary>
/// Replaces the generic host's ConsoleLifetime, which would take over Ctrl+C and stop the silo
/// under the load loops. The load generator handles Ctrl+C itself: stop issuing, drain, report.
/// </summary>
internal sealed class EmbeddedSiloLifetime : IHostLifetime
{
    public Task WaitForStartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
