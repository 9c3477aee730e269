using Microsoft.Extensions.Options;

namespace Snapper.Configuration;

/// <summary>Checks <see cref="SnapperOptions"/> at start-up; each failure names the option and its bad value.</summary>
internal sealed class SnapperOptionsValidator : IValidateOptions<SnapperOptions>
{
    public ValidateOptionsResult Validate(string? name, SnapperOptions options)
    {
        var failures = new List<string>();
        if (!Enum.IsDefined(options.Logging))
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.Logging)} is {(int)options.Logging}, which is not a {nameof(LoggingMode)}.");
        }

        if (options.Logging == LoggingMode.File && string.IsNullOrWhiteSpace(options.LogDirectory))
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.LogDirectory)} must name a directory when {nameof(SnapperOptions.Logging)} is {nameof(LoggingMode.File)}.");
        }

        if (options.LoggerCount is < 1 or > 1024)
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.LoggerCount)} must be between 1 and 1024 (was {options.LoggerCount}).");
        }

        if (options.MaxBatchesInFlight is < 1 or > 1024)
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.MaxBatchesInFlight)} must be between 1 and 1024 (was {options.MaxBatchesInFlight}).");
        }

        if (options.ActTidRangeSize is < 1 or > 1_000_000)
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.ActTidRangeSize)} must be between 1 and 1000000 (was {options.ActTidRangeSize}).");
        }

        foreach (var (option, value) in new[] { (nameof(SnapperOptions.AfterCommitAttemptTimeout), options.AfterCommitAttemptTimeout), (nameof(SnapperOptions.AfterCommitMaxBackoff), options.AfterCommitMaxBackoff) })
        {
            if (value < TimeSpan.FromMilliseconds(100) || value > TimeSpan.FromHours(1))
            {
                failures.Add($"{nameof(SnapperOptions)}.{option} must be between 100 ms and 1 hour (was {value}).");
            }
        }

        if (options.TransactionTimeout < TimeSpan.FromMilliseconds(100) || options.TransactionTimeout > TimeSpan.FromHours(1))
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.TransactionTimeout)} must be between 100 ms and 1 hour (was {options.TransactionTimeout}).");
        }

        if (options.CheckpointInterval != TimeSpan.Zero && (options.CheckpointInterval < TimeSpan.FromSeconds(1) || options.CheckpointInterval > TimeSpan.FromDays(1)))
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.CheckpointInterval)} must be zero (off) or between 1 s and 1 day (was {options.CheckpointInterval}).");
        }

        if (options.CoordinatorCount is < 1 or > 64)
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.CoordinatorCount)} must be between 1 and 64 (was {options.CoordinatorCount}).");
        }

        if (options.DeclarationTimeout < TimeSpan.FromMilliseconds(10) || options.DeclarationTimeout > TimeSpan.FromHours(1))
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.DeclarationTimeout)} must be between 10 ms and 1 hour (was {options.DeclarationTimeout}).");
        }

        if (options.DeadlockTimeout < TimeSpan.FromMilliseconds(1) || options.DeadlockTimeout > TimeSpan.FromHours(1))
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.DeadlockTimeout)} must be between 1 ms and 1 hour (was {options.DeadlockTimeout}).");
        }

        if (options.MaxPactAttempts is < 1 or > 1000)
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.MaxPactAttempts)} must be between 1 and 1000 (was {options.MaxPactAttempts}).");
        }

        if (options.MaxCommitDependencyChain is < 1 or > 1024)
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.MaxCommitDependencyChain)} must be between 1 and 1024 (was {options.MaxCommitDependencyChain}).");
        }

        if (options.LogWriteDelay < TimeSpan.Zero || options.LogWriteDelay > TimeSpan.FromSeconds(10))
        {
            failures.Add($"{nameof(SnapperOptions)}.{nameof(SnapperOptions.LogWriteDelay)} must be between 0 and 10 s (was {options.LogWriteDelay}).");
        }

        return failures.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(failures);
    }
}
