namespace Snapper.Reconnaissance;

/// <summary>
/// What the reconnaissance runs under way wrote on one actor, by run: each run's own copy of the
/// state, so every call of a run here (a second call, a call back, a call in parallel) reads what
/// the run wrote before, as a serial execution would. The committed state is never touched.
/// </summary>
/// <remarks>
/// Kept by the activation alone and never handed over: an activation that goes drops its runs'
/// writes, and a later call of such a run reads the newest state again, which only makes its guess
/// worse. A run's copy goes when its root says the run ended (<see cref="End"/>); if that word is
/// lost, the next write of any run here drops every copy past its run's deadline, when no call of
/// that run may read it any more.
/// </remarks>
internal sealed class ReconnaissanceWrites<TState>
    where TState : class
{
    private readonly Dictionary<Guid, (TState State, DateTimeOffset Deadline)> runs = [];

    /// <summary>Runs with a copy here (tests).</summary>
    internal int Count => runs.Count;

    /// <summary>The copy <paramref name="run"/> wrote here, if it wrote.</summary>
    public bool TryGet(Guid run, out TState written)
    {
        var found = runs.TryGetValue(run, out var entry);
        written = entry.State;
        return found;
    }

    /// <summary>True if <paramref name="run"/> wrote here.</summary>
    public bool Wrote(Guid run) => runs.ContainsKey(run);

    /// <summary>The copy <paramref name="run"/> writes here from now on, kept until the run ends or its <paramref name="deadline"/> has passed.</summary>
    public void Add(Guid run, TState copy, DateTimeOffset deadline, DateTimeOffset now)
    {
        foreach (var (other, entry) in runs)
        {
            if (entry.Deadline < now)
            {
                runs.Remove(other); // its end was lost; no call of it reads any more
            }
        }

        runs[run] = (copy, deadline);
    }

    /// <summary><paramref name="run"/> has ended: its copy goes.</summary>
    public void End(Guid run) => runs.Remove(run);
}
