using System.Diagnostics;
using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;
using Snapper.Grains;
using Snapper.Protocol;

namespace Snapper.State;

/// <summary>
/// Silo-wide: the nested calls of PACTs this silo's actors wait on, timed. A call not answered
/// long after such calls usually are asks its callee for the answer it gave
/// (<see cref="ISnapperParticipant.PactCallAnswer"/>): if the call ran there, its caller goes on
/// with that answer instead of waiting for the response timeout.
/// </summary>
/// <remarks>
/// <para>Why: a PACT's caller holds its turn while it waits, so every later PACT and batch on that
/// actor, and on each actor their batches share, waits with it. An answer lost or held up on the
/// way after the callee's work is done (a pause of either silo, a dropped message) held them all
/// for Orleans' response timeout (30 s by default).</para>
/// <para>Asking costs one round trip. The callee answers with what its call answered; a call that
/// waits there for its turn is asked about again later, each time after twice as long as it has
/// waited. A call that has not reached the callee at all (a slow network, a paused sender) holds
/// the PACT's turn there and on the caller, and with it every later batch on both: on a PACT's
/// first runs (<see cref="LateCallTerms.MayRefuseAhead"/>) the callee refuses it ahead, so the PACT
/// alone aborts (<see cref="AbortReason.LateCall"/>) and runs again. The first question goes after
/// <see cref="TypicalMultiple"/> times the calls' moving average answer time, at least
/// <see cref="FirstAskFloor"/> (<see cref="RefuseAheadFloor"/> where the callee may refuse) and at
/// most <see cref="AskCeiling"/>.</para>
/// <para>A lock-guarded list of the waited calls (each call's own object, no allocation) that one
/// timer looks over every <see cref="Period"/>, running only while calls are watched. An answer
/// only marks its call done (no lock on the answer's path); the next look takes it off the list.</para>
/// </remarks>
internal sealed class LateAnswers : IDisposable
{
    /// <summary>How long the first question waits at least: far above a loaded silo's ordinary answer time.</summary>
    public static readonly TimeSpan FirstAskFloor = TimeSpan.FromMilliseconds(10);

    /// <summary>
    /// How long a call waits at least before its callee is asked whether it may refuse it ahead
    /// (<see cref="LateCallTerms.MayRefuseAhead"/>): a refusal aborts a PACT, and in a batch an ACT
    /// has read from it aborts the batch, so a hiccup of a loaded silo (a GC pause, a busy thread
    /// pool) must not look like a call lost on its way.
    /// </summary>
    public static readonly TimeSpan RefuseAheadFloor = TimeSpan.FromMilliseconds(50);

    /// <summary>How long a question waits at most after the previous one.</summary>
    public static readonly TimeSpan AskCeiling = TimeSpan.FromSeconds(1);

    /// <summary>How often the watched calls are looked over.</summary>
    public static readonly TimeSpan Period = TimeSpan.FromMilliseconds(5);

    private const int TypicalMultiple = 4;

    private readonly ActorResolver resolver;
    private readonly TimeProvider clock;
    private readonly SnapperMetrics metrics;
    private readonly ILogger diagnostics;
    private readonly Lock gate = new();
    private readonly ITimer timer;
    private readonly long floor, ceiling, refuseFloor;
    private WaitedCalls.Waited? first, last;
    private bool ticking;
    private bool disposed;
    private long typical; // moving average of the watched calls' answer times, in timestamp ticks

    public LateAnswers(ActorResolver resolver, TimeProvider clock, SnapperMetrics metrics, ILoggerFactory loggerFactory)
    {
        this.resolver = resolver;
        this.clock = clock;
        this.metrics = metrics;
        diagnostics = loggerFactory.CreateLogger("Snapper.Pact");
        floor = ToTimestamp(FirstAskFloor);
        ceiling = ToTimestamp(AskCeiling);
        refuseFloor = ToTimestamp(RefuseAheadFloor);
        typical = floor / TypicalMultiple;
        using (ExecutionContext.SuppressFlow()) // the ticks carry nothing of whoever built this
        {
            timer = clock.CreateTimer(static state => ((LateAnswers)state!).Tick(), this, Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
        }
    }

    /// <summary>A call was made and its answer is not in yet: timed from now.</summary>
    public void Watch(WaitedCalls.Waited call)
    {
        var now = clock.GetTimestamp();
        call.Sent = now;
        var askAfter = Math.Clamp(TypicalMultiple * Volatile.Read(ref typical), floor, ceiling);
        call.AskAt = now + (call.Terms.MayRefuseAhead ? Math.Max(askAfter, refuseFloor) : askAfter);
        lock (gate)
        {
            call.Previous = last;
            if (last is null)
            {
                first = call;
            }
            else
            {
                last.Next = call;
            }

            last = call;
            if (!ticking && !disposed)
            {
                ticking = true;
                timer.Change(Period, Period);
            }
        }
    }

    /// <summary>
    /// The call's wait is over (<paramref name="answered"/> by its own answer, or given up, or
    /// answered again): it is no longer asked about, and leaves the list at the next look (no lock
    /// here, on every answer). Only a call's own answers make the average answer time.
    /// </summary>
    public void Unwatch(WaitedCalls.Waited call, bool answered)
    {
        if (call.Done)
        {
            return;
        }

        call.Done = true;
        if (answered)
        {
            // A racy average: a lost update only shifts it a little.
            var answeredAfter = clock.GetTimestamp() - call.Sent;
            Volatile.Write(ref typical, typical + ((answeredAfter - typical) / 16));
        }
    }

    /// <inheritdoc />
    public void Dispose()
    {
        lock (gate)
        {
            disposed = true;
            timer.Dispose();
        }
    }

    private void Tick()
    {
        var now = clock.GetTimestamp();
        List<WaitedCalls.Waited>? due = null;
        lock (gate)
        {
            for (WaitedCalls.Waited? call = first, next; call is not null; call = next)
            {
                next = call.Next;
                if (call.Done || !call.Askable)
                {
                    Unlink(call);
                }
                else if (call.AskAt <= now)
                {
                    call.AskAt = now + Math.Clamp(2 * (now - call.Sent), floor, ceiling);
                    (due ??= []).Add(call);
                }
            }

            if (first is null && !disposed)
            {
                ticking = false;
                timer.Change(Timeout.InfiniteTimeSpan, Timeout.InfiniteTimeSpan);
            }
        }

        foreach (var call in due ?? [])
        {
            _ = Ask(call);
        }
    }

    // Under the gate.
    private void Unlink(WaitedCalls.Waited call)
    {
        if (call.Previous is null)
        {
            first = call.Next;
        }
        else
        {
            call.Previous.Next = call.Next;
        }

        if (call.Next is null)
        {
            last = call.Previous;
        }
        else
        {
            call.Next.Previous = call.Previous;
        }

        call.Previous = call.Next = null;
    }

    // Asks the callee for the answer it gave; the wait ends with it if there is one. Each time is
    // asked whether or not the last question was answered (that answer may be the late one), and
    // the call's own answer (or its response timeout) still ends the wait.
    private async Task Ask(WaitedCalls.Waited call)
    {
        try
        {
            var answer = await resolver.Participant(call.Target).PactCallAnswer(call.Terms.Bid, call.Tid, resolver.Participant(call.Caller).GetGrainId(), call.Terms.RefuseAheadFor);
            if (answer.Answered)
            {
                var waited = Stopwatch.GetElapsedTime(call.Sent, clock.GetTimestamp());
                metrics.LateAnswerRecovered(answer.RefusedAhead);
                if (answer.RefusedAhead)
                {
                    LogMessages.LateCallRefusedAhead(diagnostics, call.Tid, call.Target, waited);
                }
                else
                {
                    LogMessages.LateAnswerRecovered(diagnostics, call.Tid, call.Target, waited);
                }

                call.Recover(answer);
            }
        }
        catch (Exception e)
        {
            LogMessages.LateAnswerNotAsked(diagnostics, e, call.Tid, call.Target);
        }
    }

    private long ToTimestamp(TimeSpan span) => (long)(span.TotalSeconds * clock.TimestampFrequency);
}
