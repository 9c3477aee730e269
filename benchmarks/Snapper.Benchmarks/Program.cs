using BenchmarkDotNet.Running;

BenchmarkSwitcher.FromAssembly(typeof(Snapper.Benchmarks.Concurrency.WaitDieLockBenchmarks).Assembly).Run(args);
