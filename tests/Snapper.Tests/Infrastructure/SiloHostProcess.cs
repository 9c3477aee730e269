using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using System.Text;

namespace Snapper.Tests.Infrastructure;

/// <summary>
/// A SiloHost (samples/SiloHost) running as its own process, as a user runs one. Started with
/// free loopback ports; ready once it prints its "serving" line.
/// </summary>
public sealed class SiloHostProcess : IAsyncDisposable
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);
    private readonly Process process;
    private readonly StringBuilder output = new();
    private readonly List<string> stdout = [];
    private readonly TaskCompletionSource serving = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private SiloHostProcess(Process process, int siloPort, int gatewayPort)
    {
        this.process = process;
        SiloPort = siloPort;
        GatewayPort = gatewayPort;
    }

    public int SiloPort { get; }

    public int GatewayPort { get; }

    /// <summary>What it printed so far (stdout and stderr).</summary>
    public string Output
    {
        get
        {
            lock (output)
            {
                return output.ToString();
            }
        }
    }

    /// <summary>The lines it printed on stdout so far.</summary>
    public IReadOnlyList<string> Stdout
    {
        get
        {
            lock (output)
            {
                return [.. stdout];
            }
        }
    }

    public bool HasExited => process.HasExited;

    public int ExitCode => process.ExitCode;

    /// <summary>Starts a SiloHost; joins <paramref name="primary"/>'s cluster if given. Returns once it serves.</summary>
    public static async Task<SiloHostProcess> StartAsync(SiloHostProcess? primary = null, params string[] extra)
    {
        var (siloPort, gatewayPort) = (FreePort(), FreePort());
        List<string> args = [Dll, "--silo-port", $"{siloPort}", "--gateway-port", $"{gatewayPort}", .. extra];
        if (primary is not null)
        {
            args.AddRange(["--primary", $"127.0.0.1:{primary.SiloPort}"]);
        }

        var info = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        args.ForEach(info.ArgumentList.Add);
        info.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        var host = new SiloHostProcess(Process.Start(info)!, siloPort, gatewayPort);
        host.process.OutputDataReceived += (_, e) => host.Received(e.Data, onStdout: true);
        host.process.ErrorDataReceived += (_, e) => host.Received(e.Data, onStdout: false);
        host.process.BeginOutputReadLine();
        host.process.BeginErrorReadLine();
        try
        {
            await host.serving.Task.WaitAsync(Patience);
        }
        catch (Exception e) when (e is TimeoutException or InvalidOperationException)
        {
            await host.DisposeAsync();
            throw new InvalidOperationException($"SiloHost did not serve within {Patience}: {e.Message}\n{host.Output}", e);
        }

        return host;
    }

    /// <summary>Runs SiloHost with exactly <paramref name="args"/> until it exits (bad flags, --help): its exit code and output.</summary>
    public static Task<(int Exit, string Output)> RunToExitAsync(params string[] args) =>
        ChildProcess.RunAsync("dotnet", [Dll, .. args], Patience, directory: Environment.CurrentDirectory);

    /// <summary>SIGTERM, as a process manager stops it; waits for the exit.</summary>
    public async Task<int> TerminateAsync()
    {
        if (!process.HasExited)
        {
            using (var kill = Process.Start("kill", ["-TERM", $"{process.Id}"]))
            {
                await kill.WaitForExitAsync();
            }

            await process.WaitForExitAsync().WaitAsync(Patience);
        }

        return process.ExitCode;
    }

    /// <summary>SIGKILL, as a crash: no stop, no goodbye to its clients.</summary>
    public async Task KillAsync()
    {
        process.Kill(entireProcessTree: true);
        await process.WaitForExitAsync();
    }

    public async ValueTask DisposeAsync()
    {
        if (!process.HasExited)
        {
            process.Kill(entireProcessTree: true);
            await process.WaitForExitAsync();
        }

        process.Dispose();
    }

    // The SiloHost build next to this test build: samples/SiloHost/bin/{configuration}/{framework}/SiloHost.dll.
    private static string Dll
    {
        get
        {
            var build = new DirectoryInfo(AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar)); // .../bin/Release/net10.0
            var (framework, configuration) = (build.Name, build.Parent!.Name);
            for (var dir = build; dir is not null; dir = dir.Parent)
            {
                var candidate = Path.Combine(dir.FullName, "samples", "SiloHost", "bin", configuration, framework, "SiloHost.dll");
                if (File.Exists(candidate))
                {
                    return candidate;
                }
            }

            throw new FileNotFoundException($"SiloHost.dll ({configuration}, {framework}) is not built next to {build.FullName}.");
        }
    }

    private void Received(string? line, bool onStdout)
    {
        if (line is null)
        {
            serving.TrySetException(new InvalidOperationException("SiloHost exited before it served"));
            return;
        }

        lock (output)
        {
            output.AppendLine(line);
            if (onStdout)
            {
                stdout.Add(line);
            }
        }

        if (line.Contains(" serving: ", StringComparison.Ordinal))
        {
            serving.TrySetResult();
        }
    }

    /// <summary>A loopback port nothing listens on (now).</summary>
    public static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
