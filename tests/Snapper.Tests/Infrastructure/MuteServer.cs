using System.Net;
using System.Net.Sockets;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// A loopback server that accepts every connection and never says a word: what a peer that is no
/// Orleans endpoint looks like to a TCP probe (a web server waiting for a request, say).
/// </summary>
public sealed class MuteServer : IAsyncDisposable
{
    private readonly TcpListener listener = new(IPAddress.Loopback, 0);
    private readonly CancellationTokenSource stopping = new();
    private readonly List<TcpClient> accepted = [];
    private readonly Task accepting;

    public MuteServer()
    {
        listener.Start();
        accepting = Task.Run(async () =>
        {
            while (!stopping.IsCancellationRequested)
            {
                accepted.Add(await listener.AcceptTcpClientAsync(stopping.Token));
            }
        });
    }

    /// <summary>host:port it listens at.</summary>
    public string Endpoint => $"127.0.0.1:{((IPEndPoint)listener.LocalEndpoint).Port}";

    public async ValueTask DisposeAsync()
    {
        await stopping.CancelAsync();
        await Record.ExceptionAsync(() => accepting); // cancelled
        accepted.ForEach(c => c.Dispose());
        listener.Dispose();
        stopping.Dispose();
    }
}
