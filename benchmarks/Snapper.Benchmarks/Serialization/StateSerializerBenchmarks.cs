using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using ListAppend;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Serialization;
using SmallBank;
using Snapper.Serialization;

namespace Snapper.Benchmarks.Serialization;

/// <summary>
/// The two <see cref="IStateSerializer"/>s on what every writing transaction does to its actor's
/// state: copy it before the work (so an abort leaves the committed state alone) and serialize it
/// into the Prepare record. JSON is the baseline of each category; calls go through the interface,
/// as the silo registers them.
/// </summary>
[MemoryDiagnoser]
[GroupBenchmarksBy(BenchmarkLogicalGroupRule.ByCategory)]
[CategoriesColumn]
public class StateSerializerBenchmarks
{
    private const int TidCount = 100;
    private IStateSerializer json = null!;
    private IStateSerializer orleans = null!;
    private ServiceProvider services = null!;
    private Account account = null!;
    private TidList tidList = null!;

    [GlobalSetup]
    public void Setup()
    {
        services = new ServiceCollection().AddSerializer().BuildServiceProvider();
        json = new JsonStateSerializer();
        orleans = new OrleansStateSerializer(services.GetRequiredService<Serializer>(), services.GetRequiredService<DeepCopier>());
        account = new Account { Checking = 12_345.67m, Savings = 9_876.54m };
        tidList = new TidList();
        tidList.Apply([.. Enumerable.Range(0, TidCount).Select(i => 1_000_000L + (i * 37L))]);
    }

    [GlobalCleanup]
    public void Cleanup() => services.Dispose();

    [Benchmark(Baseline = true, Description = "JSON: copy Account")]
    [BenchmarkCategory("Copy Account")]
    public Account JsonCopyAccount() => json.Copy(account);

    [Benchmark(Description = "Orleans: copy Account")]
    [BenchmarkCategory("Copy Account")]
    public Account OrleansCopyAccount() => orleans.Copy(account);

    [Benchmark(Baseline = true, Description = "JSON: serialize Account")]
    [BenchmarkCategory("Serialize Account")]
    public byte[] JsonSerializeAccount() => json.Serialize(account);

    [Benchmark(Description = "Orleans: serialize Account")]
    [BenchmarkCategory("Serialize Account")]
    public byte[] OrleansSerializeAccount() => orleans.Serialize(account);

    [Benchmark(Baseline = true, Description = "JSON: copy TidList(100)")]
    [BenchmarkCategory("Copy TidList")]
    public TidList JsonCopyTidList() => json.Copy(tidList);

    [Benchmark(Description = "Orleans: copy TidList(100)")]
    [BenchmarkCategory("Copy TidList")]
    public TidList OrleansCopyTidList() => orleans.Copy(tidList);

    [Benchmark(Baseline = true, Description = "JSON: serialize TidList(100)")]
    [BenchmarkCategory("Serialize TidList")]
    public byte[] JsonSerializeTidList() => json.Serialize(tidList);

    [Benchmark(Description = "Orleans: serialize TidList(100)")]
    [BenchmarkCategory("Serialize TidList")]
    public byte[] OrleansSerializeTidList() => orleans.Serialize(tidList);
}
