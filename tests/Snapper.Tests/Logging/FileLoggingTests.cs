using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using Snapper.Logging;
using Snapper.Logging.FileStorage;
using Snapper.Tests.Infrastructure;
using Snapper.Configuration;

namespace Snapper.Tests.Logging;

/// <summary>A silo configured with <see cref="LoggingMode.File"/> writes its records to real files.</summary>
public sealed class FileLoggingTests : IDisposable
{
    private readonly string directory = Path.Combine(Path.GetTempPath(), $"snapper-file-logging-{Guid.NewGuid():N}");

    [Fact]
    public async Task ACT_and_PACT_records_reach_the_files_and_decode()
    {
        await using (var silo = await TestSilo.StartAsync(s => s.Configure(o =>
        {
            o.Logging = LoggingMode.File;
            o.LogDirectory = directory;
            o.LoggerCount = 1;
            o.CoordinatorCount = 1;
        })))
        {
            Assert.IsType<FileLogStorage>(silo.Services.GetRequiredService<ILogStorage>());
            var (a, b) = (ActorId.Create<ITestActor>("fa"), ActorId.Create<ITestActor>("fb"));
            await silo.Client.RunAct<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1));
            await silo.Client.RunPact<ITestActor>(a, (x, ctx) => x.AddThenCall(ctx, 1, b, 1), AccessSet.Of(a).And(b));
        }

        // A new storage over the same directory (as after a restart) reads what was made durable.
        await using var reopened = new FileLogStorage(new FileLogStorageOptions { Directory = directory });
        var kinds = new List<LogRecordKind>();
        await foreach (var log in reopened.ListAsync(CancellationToken.None))
        {
            await foreach (var bytes in reopened.ReadAsync(log, CancellationToken.None))
            {
                kinds.Add(LogRecordCodec.Decode(bytes.Span).Kind);
            }
        }

        Assert.Contains(LogRecordKind.CoordPrepare, kinds);
        Assert.Equal(2, kinds.Count(k => k == LogRecordKind.Prepare));
        Assert.Contains(LogRecordKind.CoordCommit, kinds);
        Assert.Contains(LogRecordKind.BatchInfo, kinds);
        Assert.Equal(2, kinds.Count(k => k == LogRecordKind.BatchComplete));
        Assert.Contains(LogRecordKind.BatchCommit, kinds);
    }

    [Fact]
    public async Task File_logging_without_a_directory_fails_start_up_naming_the_option()
    {
        var failure = await Assert.ThrowsAsync<OptionsValidationException>(() => TestSilo.StartAsync(s => s.Configure(o => o.Logging = LoggingMode.File)));
        Assert.Contains("SnapperOptions.LogDirectory", failure.Message);
    }

    public void Dispose()
    {
        if (Directory.Exists(directory))
        {
            Directory.Delete(directory, recursive: true);
        }
    }
}
