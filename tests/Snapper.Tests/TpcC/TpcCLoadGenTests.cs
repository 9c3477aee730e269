using System.Text.Json;
using Snapper.LoadGen;
using Snapper.LoadGen.Options;

namespace Snapper.Tests.TpcC;

/// <summary><c>Snapper.LoadGen tpcc</c>: the command line and a tiny run in every mode end to end.</summary>
public sealed class TpcCLoadGenTests
{
    private static readonly string[] Types = ["neworder", "payment", "orderstatus", "delivery", "stocklevel"];

    [Fact]
    public async Task A_tiny_run_in_pact_act_and_hybrid_verifies_and_reports_NewOrder_per_mode()
    {
        var json = Path.Combine(Path.GetTempPath(), $"snapper-tpcc-{Guid.NewGuid():N}.json");
        var (stdout, stderr) = (new StringWriter(), new StringWriter());
        try
        {
            var exit = await Runner.MainAsync(
                ["tpcc", "--warehouses", "1", "--modes", "pact,act,hybrid", "--duration", "2", "--warmup", "0", "--pipeline", "4", "--verify", "--json", json],
                stdout, stderr, CancellationToken.None);

            Assert.True(exit == 0, $"exit {exit}\n{stdout}\n{stderr}");
            var table = stdout.ToString();
            foreach (var mode in (string[])["pact", "act", "hybrid"])
            {
                Assert.Contains($"{mode}:neworder ", table, StringComparison.Ordinal);
                Assert.Contains($"{mode} NewOrder throughput: ", table, StringComparison.Ordinal);
                Assert.Contains($"{mode} verify: ok (TPC-C consistency conditions 1-4 hold on 1 warehouse(s), 10 districts)", table, StringComparison.Ordinal);
                Assert.Contains($"[{mode}] loaded 1 warehouse(s), 321 actors, in ", stderr.ToString(), StringComparison.Ordinal);
            }

            Assert.Contains("hybrid:pact ", table, StringComparison.Ordinal);
            Assert.Contains("hybrid:act ", table, StringComparison.Ordinal);

            using var report = JsonDocument.Parse(await File.ReadAllTextAsync(json));
            Assert.Equal("tpcc", report.RootElement.GetProperty("workload").GetString());
            Assert.Equal(1, report.RootElement.GetProperty("config").GetProperty("warehouses").GetInt32());
            var runs = report.RootElement.GetProperty("runs").EnumerateArray().ToList();
            Assert.Equal(["pact", "act", "hybrid"], runs.Select(r => r.GetProperty("mode").GetString()));
            foreach (var run in runs)
            {
                var mode = run.GetProperty("mode").GetString();
                Assert.True(run.GetProperty("consistency").GetProperty("ok").GetBoolean(), $"{mode}: {run.GetProperty("consistency")}");
                var kinds = run.GetProperty("kinds");
                Assert.Equal(Types, kinds.EnumerateObject().Select(k => k.Name));
                var newOrder = kinds.GetProperty("neworder");
                Assert.True(Finished(newOrder) > 0, $"{mode} issued no NewOrder");
                Assert.Equal(Finished(run), kinds.EnumerateObject().Sum(k => Finished(k.Value)));

                // NewOrder throughput is the committed NewOrders over the measured time.
                Assert.Equal(newOrder.GetProperty("committed").GetInt64() / run.GetProperty("measuredSeconds").GetDouble(), newOrder.GetProperty("throughput").GetDouble(), 6);
            }

            // PACTs never abort for concurrency, and a User rollback aborts alone.
            foreach (var reason in runs[0].GetProperty("abortReasons").EnumerateObject())
            {
                Assert.Equal("User", reason.Name);
            }

            // Hybrid: the variants split the whole run, and each type its own share.
            var hybrid = runs[2];
            var variants = hybrid.GetProperty("variants");
            Assert.Equal(["pact", "act"], variants.EnumerateObject().Select(v => v.Name));
            Assert.Equal(Finished(hybrid), variants.EnumerateObject().Sum(v => Finished(v.Value)));
            Assert.True(Finished(variants.GetProperty("pact")) > Finished(variants.GetProperty("act")), "hybrid issues 90% PACTs by default");
            var newOrderSplit = hybrid.GetProperty("kinds").GetProperty("neworder").GetProperty("variants");
            Assert.Equal(Finished(hybrid.GetProperty("kinds").GetProperty("neworder")), newOrderSplit.EnumerateObject().Sum(v => Finished(v.Value)));
            Assert.Equal(JsonValueKind.Null, runs[0].GetProperty("variants").ValueKind);
        }
        finally
        {
            File.Delete(json);
        }
    }

    [Theory]
    [InlineData("tpcc", "--warehouses", "0", "--warehouses")]
    [InlineData("tpcc", "--warehouses", "two", "--warehouses")]
    [InlineData("tpcc", "--modes", "nt,pact", "'nt'")]
    [InlineData("tpcc", "--modes", "act-elr", "'act-elr'")]
    [InlineData("tpcc", "--dist", "zipf", "--dist")]
    [InlineData("smallbank", "--warehouses", "2", "--warehouses")]
    [InlineData("listappend", "--neworder-only", "", "--neworder-only")]
    public async Task Bad_tpcc_flags_exit_2_naming_them(string workload, string flag, string value, string named)
    {
        var stderr = new StringWriter();
        var exit = await Runner.MainAsync(value.Length == 0 ? [workload, flag] : [workload, flag, value], new StringWriter(), stderr, CancellationToken.None);

        Assert.Equal(2, exit);
        Assert.Contains(named, stderr.ToString(), StringComparison.Ordinal);
    }

    [Fact]
    public void Tpcc_defaults_to_two_warehouses_the_standard_mix_and_modes_pact_act_hybrid()
    {
        static LoadGenOptions Parse(params string[] args) => LoadGenCommandLine.Options(LoadGenCommandLine.Create().Parse(args));
        var options = Parse("tpcc");
        Assert.Equal("tpcc", options.Workload);
        Assert.Equal(["pact", "act", "hybrid"], options.Modes);
        Assert.Equal(2, options.Warehouses);
        Assert.False(options.NewOrderOnly);
        Assert.Equal(90, options.PactPercent);

        var newOrderOnly = Parse("tpcc", "--neworder-only", "--warehouses=3", "--modes", "hybrid", "--pact-percent", "50");
        Assert.True(newOrderOnly.NewOrderOnly);
        Assert.Equal(3, newOrderOnly.Warehouses);
        Assert.Equal(["hybrid"], newOrderOnly.Modes);
        Assert.Equal(50, newOrderOnly.PactPercent);

        // The other workloads keep their defaults.
        Assert.Equal(["nt", "pact", "act"], Parse("smallbank").Modes);
        Assert.Equal(["pact", "act"], Parse("listappend").Modes);
    }

    private static long Finished(JsonElement run) => run.GetProperty("committed").GetInt64() + run.GetProperty("aborted").GetInt64();
}
