using Snapper.Protocol;

namespace Snapper.Tests.Protocol;

/// <summary><see cref="Aborts.ReasonOf"/> names the reason <see cref="Aborts.AbortedBy(long, Exception)"/> reports.</summary>
public sealed class AbortsTests
{
    public static TheoryData<Exception> Failures() =>
    [
        new TransactionAbortedException(AbortReason.WaitDie, "died"),
        new TransactionAbortedException(AbortReason.Deadlock, "waited too long"),
        new SnapperException("misuse"),
        new GatewayTooBusyException(),
        new InvalidOperationException("user code"),
    ];

    [Theory]
    [MemberData(nameof(Failures))]
    public void The_reason_of_a_failure_is_the_reason_its_abort_reports(Exception failure) =>
        Assert.Equal(Aborts.AbortedBy(7, failure).Reason, Aborts.ReasonOf(failure));
}
