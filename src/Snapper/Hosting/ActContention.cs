namespace Snapper.Hosting;

/// <summary>
/// How the ACTs of one call site (one <c>RunAct</c> body) fare on this client, as moving averages:
/// how often the first attempt loses its race (aborts for a concurrency reason), and how often a
/// promoted start's first run, placed without a reconnaissance, was refused for calling beyond what
/// it declared. While most first attempts lose, a new ACT starts as a promoted PACT at once,
/// declaring its first actor and the actors its call names (<see cref="Grains.NamedActors"/>): such
/// a run costs about what a PACT does, far less than an ACT attempt that locks, waits and aborts on
/// every actor it reached. A body that calls further actors in rounds has that first run refused;
/// a reconnaissance (<see cref="Reconnaissance.ReconnaissanceParticipant{TState}"/>) then learns all
/// its calls at once, and where most first runs are refused (above <see cref="ReconnoitreAbove"/>),
/// a promoted start reconnoitres before its first run instead. One in <see cref="SampleEvery"/>
/// starting promoted still races as an ACT, so the loss rate stays current (seldom: under skew that
/// attempt costs several promoted runs), and one in as many reconnoitring starts goes without, so
/// the refusals do (it costs one refused run at most).
/// </summary>
/// <remarks>Read and written by every caller at once without a lock: a lost update only slows an average.</remarks>
internal sealed class ActContention
{
    /// <summary>Above this share of first attempts lost, starting promoted is considered.</summary>
    public const double Threshold = 0.5;

    /// <summary>While ACTs start promoted, one in this many still races as an ACT; while they reconnoitre, one in this many goes without.</summary>
    public const int SampleEvery = 64;

    /// <summary>
    /// Above this share of first runs refused (the body calls in rounds beyond what its call names),
    /// a promoted start reconnoitres first: a reconnaissance costs less than a PACT run, refused or not.
    /// </summary>
    public const double ReconnoitreAbove = 0.25;

    private const double Weight = 1.0 / 32;
    private double lossRate;
    private double refusals = double.NaN; // not measured yet
    private long started;
    private long promotedStarts;
    private bool readsContextEarly;

    /// <summary>
    /// Whether this call site's body reads its context's tid or batch before its call is sent: its
    /// promoted runs are then placed up front, declaring only what they know, since a run placed as
    /// its call is sent has neither until then; nor is it reconnoitred, which has none at all.
    /// </summary>
    public bool PlacesUpFront => Volatile.Read(ref readsContextEarly);

    /// <summary>The moving share of first attempts that lost their race.</summary>
    public double LossRate => Volatile.Read(ref lossRate);

    /// <summary>Whether the ACT starting now should start as a promoted PACT.</summary>
    public bool PromoteAtOnce() => LossRate >= Threshold && Interlocked.Increment(ref started) % SampleEvery != 0;

    /// <summary>Whether the promoted start beginning now should reconnoitre before its first run.</summary>
    public bool Reconnoitres() =>
        !PlacesUpFront
        && Volatile.Read(ref refusals) > ReconnoitreAbove // not measured yet (NaN): measured first
        && Interlocked.Increment(ref promotedStarts) % SampleEvery != 0;

    /// <summary>A body of this call site read its context's tid or batch before its call was sent.</summary>
    public void ReadContextEarly() => Volatile.Write(ref readsContextEarly, true);

    /// <summary>An ACT's first attempt ended: <paramref name="lostRace"/> if it aborted for a concurrency reason.</summary>
    public void FirstAttemptEnded(bool lostRace) => Average(ref lossRate, lostRace ? 1 : 0);

    /// <summary>
    /// The first run of an ACT started promoted, placed without a reconnaissance, committed or was
    /// <paramref name="refused"/> for calling beyond its declaration.
    /// </summary>
    public void FirstPromotedRunEnded(bool refused) => Average(ref refusals, refused ? 1 : 0);

    private static void Average(ref double average, double sample)
    {
        var current = Volatile.Read(ref average);
        Volatile.Write(ref average, double.IsNaN(current) ? sample : current + (Weight * (sample - current)));
    }
}
