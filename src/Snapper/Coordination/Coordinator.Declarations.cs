namespace Snapper.Coordination;

/// <summary>
/// A declared actor that is never called would stall its batch, and every later batch on its
/// actors, forever. While this coordinator has unresolved batches, a timer looks for one older than
/// the declaration timeout that has not completed, asks its stalled participants which PACT it
/// waits for, and aborts that PACT with <see cref="AbortReason.DeclarationError"/> naming it (the
/// whole batch if that PACT's abort is already under way and still stalls it).
/// </summary>
internal sealed partial class Coordinator
{
    private IGrainTimer? declarationSweep;

    private void EnsureDeclarationSweep()
    {
        if (declarationSweep is not null)
        {
            return;
        }

        var period = TimeSpan.FromTicks(Math.Clamp(settings.DeclarationTimeout.Ticks / 4, TimeSpan.FromMilliseconds(10).Ticks, TimeSpan.FromSeconds(1).Ticks));
        declarationSweep = this.RegisterGrainTimer(SweepDeclarations, period, period);
    }

    private async Task SweepDeclarations()
    {
        if (unresolved.Count == 0)
        {
            declarationSweep?.Dispose();
            declarationSweep = null;
            return;
        }

        var now = clock.GetUtcNow();
        var overdue = unresolved.Values.FirstOrDefault(b => b.Phase == BatchPhase.Emitted && now - b.EmittedAt > settings.DeclarationTimeout);
        if (overdue is null || ongoingCascade != 0)
        {
            return;
        }

        foreach (var actor in overdue.Pending.ToList())
        {
            var (tid, description) = await actors.Participant(actor).DescribeWait(overdue.Bid);
            if (tid != 0)
            {
                var stalled = new TransactionAbortedException(
                    AbortReason.DeclarationError,
                    $"{description} within the declaration timeout of {settings.DeclarationTimeout}") { Tid = tid };
                if (overdue.PactFailures?.ContainsKey(tid) == true)
                {
                    FailBatch(overdue, 0, stalled);
                }
                else
                {
                    FailBatch(overdue, tid, stalled);
                }

                return;
            }
        }
    }
}
