using System.CommandLine.Parsing;
using System.Globalization;
using System.Net;
using System.Net.Sockets;

namespace Snapper.LoadGen.Options;

/// <summary>
/// Checks the two CLIs' flags share (linked into SiloHost too): a text flag checked by a function
/// that throws <see cref="FormatException"/>, and <c>host:port</c>.
/// </summary>
public static class OptionChecks
{
    /// <summary>Runs <paramref name="check"/> on the flag's text, if given; its <see cref="FormatException"/> becomes a parse error naming the flag.</summary>
    public static void Text(OptionResult result, Action<string> check)
    {
        ArgumentNullException.ThrowIfNull(result);
        ArgumentNullException.ThrowIfNull(check);
        if (result.GetValueOrDefault<string?>() is not { } text)
        {
            return;
        }

        try
        {
            check(text);
        }
        catch (FormatException e)
        {
            result.AddError($"{result.Option.Name}: {e.Message}.");
        }
    }

    /// <summary>Parses <c>host:port</c>, the host a name or an IPv4 address; throws <see cref="FormatException"/>.</summary>
    public static IPEndPoint Endpoint(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        var colon = text.LastIndexOf(':');
        if (colon <= 0 || !int.TryParse(text.AsSpan(colon + 1), NumberStyles.None, CultureInfo.InvariantCulture, out var port) || port is < 1 or > 65535)
        {
            throw new FormatException($"'{text}' is not host:port with a port from 1 to 65535");
        }

        var host = text[..colon];
        if (IPAddress.TryParse(host, out var address))
        {
            return new IPEndPoint(address, port);
        }

        try
        {
            return new IPEndPoint(Dns.GetHostAddresses(host).First(a => a.AddressFamily == AddressFamily.InterNetwork), port);
        }
        catch (Exception e) when (e is SocketException or InvalidOperationException or ArgumentException)
        {
            throw new FormatException($"host '{host}' in '{text}' does not resolve to an IPv4 address");
        }
    }
}
