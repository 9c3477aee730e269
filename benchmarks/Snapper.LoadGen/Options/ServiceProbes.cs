using System.Net;
using System.Net.Sockets;

namespace Snapper.LoadGen.Options;

/// <summary>
/// Start-up checks of what a flag names outside this process (linked into SiloHost too), so a port
/// in use, a peer nobody runs or a connection string that does not parse is one line naming the
/// flag, within seconds, instead of an Orleans retry loop and its stack traces.
/// </summary>
public static class ServiceProbes
{
    /// <summary>How long a service named by a flag gets to accept a connection: one started alongside this process may still be starting.</summary>
    public static readonly TimeSpan Patience = TimeSpan.FromSeconds(10);

    private static readonly TimeSpan RetryEvery = TimeSpan.FromMilliseconds(500);

    /// <summary>Null if a TCP connection to <paramref name="endpoint"/> is accepted within <see cref="Patience"/>, else what happened.</summary>
    public static async Task<string?> TcpProblemAsync(IPEndPoint endpoint, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(endpoint);
        var giveUpAt = DateTime.UtcNow + Patience;
        while (true)
        {
            using var socket = new Socket(endpoint.AddressFamily, SocketType.Stream, ProtocolType.Tcp);
            using var attempt = CancellationTokenSource.CreateLinkedTokenSource(cancellationToken);
            attempt.CancelAfter(TimeSpan.FromSeconds(2));
            string failure;
            try
            {
                await socket.ConnectAsync(endpoint, attempt.Token);
                return null;
            }
            catch (SocketException e)
            {
                failure = e.SocketErrorCode switch
                {
                    SocketError.ConnectionRefused => "connection refused",
                    _ => e.Message,
                };
            }
            catch (OperationCanceledException) when (!cancellationToken.IsCancellationRequested)
            {
                failure = "no answer";
            }

            if (DateTime.UtcNow + RetryEvery >= giveUpAt)
            {
                return $"nothing accepted a connection at {endpoint} for {Patience.TotalSeconds:0} s ({failure})";
            }

            await Task.Delay(RetryEvery, cancellationToken);
        }
    }

    /// <summary>Null if this process could listen on <paramref name="port"/> at <paramref name="address"/>, else why not.</summary>
    public static string? ListenProblem(IPAddress address, int port)
    {
        ArgumentNullException.ThrowIfNull(address);
        try
        {
            var listener = new TcpListener(address, port);
            listener.Start();
            listener.Stop();
            return null;
        }
        catch (SocketException e)
        {
            return e.SocketErrorCode == SocketError.AddressAlreadyInUse ? $"port {port} is in use on {address}" : $"cannot listen on {address}:{port}: {e.Message}";
        }
    }

    /// <summary>Null if <paramref name="connection"/> parses as an Azure storage connection string, else why not.</summary>
    public static string? AzureConnectionProblem(string connection)
    {
        try
        {
            _ = new Azure.Data.Tables.TableServiceClient(connection);
            return null;
        }
        catch (Exception e) when (e is FormatException or ArgumentException or InvalidOperationException)
        {
            return $"not an Azure storage connection string: {e.Message.Split('\n')[0].TrimEnd().TrimEnd('.')}";
        }
    }

    /// <summary>
    /// Reaches the Azure Table service <paramref name="connection"/> names, one request at a time
    /// without the SDK's retries, trying again for <see cref="Patience"/> (a service started
    /// alongside may still be starting); null once it answered, else what went wrong, naming the endpoint.
    /// </summary>
    public static async Task<string?> AzureTableProblemAsync(string connection, CancellationToken cancellationToken)
    {
        if (AzureConnectionProblem(connection) is { } unparsable)
        {
            return unparsable;
        }

        var options = new Azure.Data.Tables.TableClientOptions();
        options.Retry.MaxRetries = 0;
        options.Retry.NetworkTimeout = TimeSpan.FromSeconds(2);
        var service = new Azure.Data.Tables.TableServiceClient(connection, options);
        var giveUpAt = DateTime.UtcNow + Patience;
        while (true)
        {
            string failure;
            try
            {
                await foreach (var _ in service.QueryAsync(maxPerPage: 1, cancellationToken: cancellationToken))
                {
                    break;
                }

                return null;
            }
            catch (Azure.RequestFailedException e) when (e.Status != 0)
            {
                return $"the Azure Table service at {service.Uri} refused: {e.Message.Split('\n')[0]}"; // it answered: trying again changes nothing
            }
            catch (Exception e) when (e is Azure.RequestFailedException or System.Net.Http.HttpRequestException || (e is OperationCanceledException && !cancellationToken.IsCancellationRequested))
            {
                failure = e.Message.Split('\n')[0];
            }

            if (DateTime.UtcNow + RetryEvery >= giveUpAt)
            {
                return $"cannot reach the Azure Table service at {service.Uri} for {Patience.TotalSeconds:0} s: {failure}";
            }

            await Task.Delay(RetryEvery, cancellationToken);
        }
    }
}
