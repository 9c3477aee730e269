using System.Diagnostics;
using System.Text.Json;
using Snapper.LoadGen;
using Snapper.LoadGen.Measurement;
using Snapper.LoadGen.Options;
using Snapper.LoadGen.Workloads;
using Snapper.Tests.Infrastructure;

namespace Snapper.Tests.LoadGen;

/// <summary>The measurement window and the warm-up that waits for the JIT; the driver tests run alone (<see cref="TimingSensitive"/>).</summary>
[Collection(TimingSensitive.Name)]
public sealed class MeasurementWindowTests
{
    [Fact]
    public void Postponing_moves_the_whole_window_while_measuring_is_far_enough_away()
    {
        var window = new MeasurementWindow(TimeSpan.FromSeconds(30), TimeSpan.FromSeconds(10));
        var (start, end) = (window.Start, window.PlannedEnd);

        Assert.True(window.TryPostpone(TimeSpan.FromSeconds(2), notice: TimeSpan.FromSeconds(1)));

        Assert.Equal(start + (2 * Stopwatch.Frequency), window.Start);
        Assert.Equal(end + (2 * Stopwatch.Frequency), window.PlannedEnd);
        Assert.Equal(window.PlannedEnd, window.End);
        Assert.InRange(window.WarmupSeconds, 31.9, 32.1);
    }

    [Fact]
    public void The_longest_time_with_no_commit_counts_empty_slots_of_the_measured_time_only()
    {
        var slots = new bool[2 * LoopRecorder.SlotsPerSecond]; // a second measured, then a drain nobody counts
        slots[0] = slots[31] = slots[60] = true;

        Assert.Equal(0.39, RunRecorder.LongestWithout(slots, seconds: 1.0), precision: 6); // slots 61..99
        Assert.Equal(0.5, RunRecorder.LongestWithout(new bool[2 * LoopRecorder.SlotsPerSecond], seconds: 0.5), precision: 6);
        Assert.Equal(0.0, RunRecorder.LongestWithout([.. Enumerable.Repeat(true, LoopRecorder.SlotsPerSecond)], seconds: 1.0), precision: 6);
    }

    [Fact]
    public void A_window_measuring_soon_or_interrupted_is_not_postponed()
    {
        var soon = new MeasurementWindow(TimeSpan.FromSeconds(0.1), TimeSpan.FromSeconds(10));
        var start = soon.Start;
        Assert.False(soon.TryPostpone(TimeSpan.FromSeconds(1), notice: TimeSpan.FromSeconds(1)));
        Assert.Equal(start, soon.Start);

        var interrupted = new MeasurementWindow(TimeSpan.FromSeconds(30), TimeSpan.FromSeconds(10));
        interrupted.Interrupt();
        Assert.False(interrupted.TryPostpone(TimeSpan.FromSeconds(1), notice: TimeSpan.FromSeconds(1)));
    }

    [Fact]
    public void Collections_are_counted_by_generation_from_the_runtime_s_cumulative_counts()
    {
        // CollectionCount(n) counts collections of generation n or higher.
        var from = new GcSummary.Sample(0, TimeSpan.FromMilliseconds(50), Gen0: 10, Gen1: 3, Gen2: 1, Cpu: TimeSpan.FromSeconds(3));
        var to = new GcSummary.Sample(Stopwatch.Frequency, TimeSpan.FromMilliseconds(150), Gen0: 20, Gen1: 5, Gen2: 2, Cpu: TimeSpan.FromSeconds(4.5));

        var gc = GcSummary.Between(from, to);

        Assert.Equal((8, 1, 1), (gc.Gen0, gc.Gen1, gc.Gen2)); // 10 collections: 1 full, 1 of gen1, 8 of gen0 alone
        Assert.Equal(10, gc.PausePercent, precision: 6);
        Assert.Equal(10, gc.MeanPauseMs, precision: 6);

        // 1.5 s of CPU in 1 s of wall time: one and a half cores, 150 µs per transaction at 10,000 a second.
        var cpu = CpuSummary.Between(from, to);
        Assert.Equal(1.5, cpu.Cores, precision: 6);
        Assert.Equal(150, cpu.MicrosecondsPer(10_000), precision: 6);
    }

    [Theory]
    [InlineData(0, 2.0)]
    [InlineData(2, 4.0)]
    public async Task The_warm_up_goes_on_while_the_JIT_compiles_up_to_the_limit(int jitSettleSeconds, double expectedWarmup)
    {
        var options = new LoadGenOptions { Actors = 100, Clients = 1, Pipeline = 2, WarmupSeconds = 2, JitSettleSeconds = jitSettleSeconds, DurationSeconds = 1 };

        // Each second's extension needs the driver's tick on time (at most 0.8 s late): a tick that
        // a starved test host delays more forgoes it, by design (once on a CI run, after the whole
        // suite). So up to three runs, each extended by whole seconds up to the limit, one fully.
        var warmups = new List<double>();
        for (var run = 0; run < 3 && !warmups.Any(w => Math.Abs(w - expectedWarmup) < 0.01); run++)
        {
            var driver = new LoadDriver(options, ActorPicker.Create(options)) { JitProbe = () => true }; // never settles
            var result = await driver.RunAsync("nt", async _ => await Task.Delay(1), CancellationToken.None);

            Assert.True(result.Completed);
            Assert.True(result.Committed > 0);
            Assert.NotNull(result.Gc);
            var warmup = result.WarmupSeconds!.Value;
            Assert.InRange(warmup, options.WarmupSeconds - 0.01, expectedWarmup + 0.01);
            Assert.True(Math.Abs(warmup - Math.Round(warmup)) < 0.01, $"a warm-up of {warmup} s: extended by whole seconds only");
            warmups.Add(warmup);
        }

        Assert.Contains(warmups, w => Math.Abs(w - expectedWarmup) < 0.01);
    }

    // The nemesis keeps its rate only with the driver on a core of its own.
    [Fact]
    public async Task The_nemesis_deactivates_migrates_and_delays_in_the_measured_window_and_the_table_and_json_say_so()
    {
        var json = Path.Combine(Path.GetTempPath(), $"snapper-nemesis-{Guid.NewGuid():N}.json");
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        try
        {
            // Plain grain calls (nt): what is measured here is the nemesis, not how Snapper's
            // protocols bear it (that is the work of the fixes issue 34 asks for).
            var exit = await Runner.MainAsync(
                ["smallbank", "--modes", "nt", "--actors", "50", "--duration", "2", "--warmup", "1", "--jit-settle", "0", "--pipeline", "4",
                 "--nemesis", "deactivate,migrate,delay", "--nemesis-rate", "20", "--json", json],
                stdout, stderr, CancellationToken.None);

            Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
            using var report = JsonDocument.Parse(await File.ReadAllTextAsync(json));
            var nemesis = Assert.Single(report.RootElement.GetProperty("runs").EnumerateArray()).GetProperty("nemesis");
            Assert.Equal(["deactivate", "migrate", "delay"], nemesis.GetProperty("faults").EnumerateArray().Select(f => f.GetString()));
            Assert.Equal(50, nemesis.GetProperty("actors").GetInt32());

            // 20 a second for 2 s, alternating: about 20 of each, none before measuring started.
            var (deactivations, migrations) = (nemesis.GetProperty("deactivations").GetInt64(), nemesis.GetProperty("migrations").GetInt64());
            Assert.InRange(deactivations, 10, 21);
            Assert.InRange(migrations, 10, 21);
            Assert.True(nemesis.GetProperty("delayedCalls").GetInt64() > 0, stdout.ToString());

            // Once it stopped, every actor answered.
            var liveness = nemesis.GetProperty("liveness");
            Assert.Equal(50, liveness.GetProperty("actors").GetInt32());
            Assert.Equal(0, liveness.GetProperty("failed").GetInt32());

            var lines = stdout.ToString().Split('\n');
            Assert.Contains(lines, l => l.StartsWith($"nt nemesis (50 actors): {deactivations} deactivations requested (", StringComparison.Ordinal) && l.Contains($"{migrations} migrations requested (", StringComparison.Ordinal) && l.Contains("calls delayed 5-300 ms", StringComparison.Ordinal));
            Assert.Contains(lines, l => l.StartsWith("nt after the nemesis: all 50 actors answered a read, the slowest in ", StringComparison.Ordinal));
        }
        finally
        {
            File.Delete(json);
        }
    }
}
