using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// Azurite's table service (npm <c>azurite</c>, pinned in tools/azurite; installed on first use) on a
/// free loopback port, in memory (or in <see cref="Location"/>, to outlive a restart), without
/// telemetry, for the tests of one class. Each test uses its
/// own table. Dispose stops it; <see cref="StopAsync"/> and <see cref="StartAsync"/> take it away and
/// bring it back mid-test (storage down).
/// </summary>
public sealed class Azurite : IAsyncLifetime
{
    private static readonly SemaphoreSlim Installing = new(1, 1);
    private static readonly TimeSpan InstallTimeout = TimeSpan.FromMinutes(5);
    private const string AccountKey = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";
    private Process? process;
    private int port;

    /// <summary>A folder to keep the tables in, so they survive <see cref="StopAsync"/>; null keeps them in memory.</summary>
    public string? Location { get; init; }

    /// <summary>The connection string of the running table service.</summary>
    public string ConnectionString => $"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={AccountKey};TableEndpoint=http://127.0.0.1:{port}/devstoreaccount1;";

    /// <summary>A table name no other test uses.</summary>
    public static string NewTableName() => $"t{Guid.NewGuid():N}";

    public async Task InitializeAsync()
    {
        port = FreePort();
        await StartAsync();
    }

    public Task DisposeAsync() => StopAsync();

    /// <summary>Starts the table service on its port (again, after <see cref="StopAsync"/>: with empty memory unless <see cref="Location"/> is set).</summary>
    public async Task StartAsync()
    {
        var executable = await EnsureInstalled();

        var info = new ProcessStartInfo(executable) { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        string[] persistence = Location is null ? ["--inMemoryPersistence"] : ["--location", Location];
        foreach (var arg in (string[])["--tableHost", "127.0.0.1", "--tablePort", $"{port}", .. persistence, "--disableTelemetry", "--skipApiVersionCheck", "--silent"])
        {
            info.ArgumentList.Add(arg);
        }

        process = Process.Start(info)!;
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (!await Listening())
        {
            if (process.HasExited || DateTime.UtcNow > deadline)
            {
                throw new InvalidOperationException($"Azurite did not start on 127.0.0.1:{port}: {await process.StandardError.ReadToEndAsync()}");
            }

            await Task.Delay(100);
        }
    }

    /// <summary>
    /// The table service's executable, installed first from the pinned lock file if it is missing
    /// (once per test run), so README's test command needs no step before it: only npm. Tests that
    /// run a script starting its own Azurite call it first.
    /// </summary>
    public static async Task<string> EnsureInstalled()
    {
        var folder = Path.Combine(RepositoryPaths.Root(), "tools", "azurite");
        var executable = Path.Combine(folder, "node_modules", ".bin", "azurite-table");
        await Installing.WaitAsync();
        try
        {
            if (File.Exists(executable))
            {
                return executable;
            }

            await Console.Error.WriteLineAsync($"Azurite is not installed for the tests: running `npm ci --prefix tools/azurite` (once)");
            var info = new ProcessStartInfo("npm") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
            foreach (var arg in (string[])["ci", "--prefix", folder, "--no-audit", "--no-fund", "--loglevel=error"])
            {
                info.ArgumentList.Add(arg);
            }

            Process npm;
            try
            {
                npm = Process.Start(info)!;
            }
            catch (System.ComponentModel.Win32Exception)
            {
                throw new InvalidOperationException("Azurite is not installed and npm is not on PATH: install npm (Debian: apt-get install npm), or run `npm ci --prefix tools/azurite`.");
            }

            using (npm)
            {
                var output = npm.StandardOutput.ReadToEndAsync();
                var errors = npm.StandardError.ReadToEndAsync();
                await npm.WaitForExitAsync().WaitAsync(InstallTimeout);
                if (npm.ExitCode != 0 || !File.Exists(executable))
                {
                    throw new InvalidOperationException($"`npm ci --prefix tools/azurite` failed (exit {npm.ExitCode}): {(await errors).Trim()} {(await output).Trim()}");
                }
            }

            return executable;
        }
        finally
        {
            Installing.Release();
        }
    }

    /// <summary>
    /// Stops the table service as an operator would (Ctrl+C, SIGINT), so one with a <see cref="Location"/>
    /// saves its tables first (it saves them only every few seconds otherwise); killed if it has not
    /// exited within 10 seconds. Storage is down until <see cref="StartAsync"/>.
    /// </summary>
    public async Task ShutDownAsync()
    {
        if (process is { HasExited: false } running && SendSignal(running.Id, Sigint) == 0)
        {
            try
            {
                await running.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(10));
            }
            catch (TimeoutException)
            {
                // Killed below.
            }
        }

        await StopAsync();
    }

    private const int Sigint = 2; // Azurite closes (and saves its tables) on SIGINT; SIGTERM would end it at once

    [System.Runtime.InteropServices.DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static extern int SendSignal(int pid, int signal);

    /// <summary>Stops the table service: storage is down until <see cref="StartAsync"/>.</summary>
    public async Task StopAsync()
    {
        if (process is { HasExited: false })
        {
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync();
        }

        process?.Dispose();
        process = null;
    }

    private async Task<bool> Listening()
    {
        try
        {
            using var client = new TcpClient();
            await client.ConnectAsync(IPAddress.Loopback, port);
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
