using System.Collections.Concurrent;
using System.Threading.Channels;

namespace Snapper.Coordination;

/// <summary>
/// NewPact and BatchComplete handed to a coordinator by its own silo without a grain message: one
/// in-process queue per coordinator active on this silo, which the coordinator reads in its own
/// grain context (docs/architecture.md, "A coordinator's own silo calls it in process").
/// </summary>
/// <remarks>
/// On a silo the client sends every NewPact to a coordinator of that silo, and an actor sends
/// BatchComplete to its batch's coordinator, which is on its silo as often as not (always, on one
/// silo). As grain messages those were six of the seventeen messages a four-actor PACT cost on one
/// silo. A coordinator opens its queue when it activates and closes it when it deactivates; a
/// sender that finds no open queue (the coordinator is elsewhere, not active yet, or stopping)
/// makes the grain call instead, so nothing depends on the queue being there.
/// </remarks>
internal sealed class CoordinatorInboxes
{
    private readonly ConcurrentDictionary<string, Channel<CoordinatorMail>> open = new(StringComparer.Ordinal);
    private long newPacts;
    private long batchCompletes;

    /// <summary>Coordinator <paramref name="coordinator"/>, activating on this silo: its queue, to read in its grain context.</summary>
    public ChannelReader<CoordinatorMail> Open(string coordinator)
    {
        var channel = Channel.CreateUnbounded<CoordinatorMail>(new UnboundedChannelOptions { SingleReader = true });
        open[coordinator] = channel;
        return channel.Reader;
    }

    /// <summary>Coordinator <paramref name="coordinator"/>, deactivating: no more mail; what is queued stays to be read (and failed) by it.</summary>
    public void Close(string coordinator)
    {
        if (open.TryRemove(coordinator, out var channel))
        {
            channel.Writer.TryComplete();
        }
    }

    /// <summary>Hands <paramref name="mail"/> to <paramref name="coordinator"/> if it is active on this silo; false if the caller must send it.</summary>
    public bool TryPost(string coordinator, CoordinatorMail mail)
    {
        if (!open.TryGetValue(coordinator, out var channel) || !channel.Writer.TryWrite(mail))
        {
            return false;
        }

        Interlocked.Increment(ref mail.Pact is null ? ref batchCompletes : ref newPacts);
        return true;
    }

    /// <summary>How many NewPacts and BatchCompletes went in process (for tests and diagnostics).</summary>
    internal (long NewPacts, long BatchCompletes) Posted => (Interlocked.Read(ref newPacts), Interlocked.Read(ref batchCompletes));
}
