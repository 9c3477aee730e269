using System.Collections.Concurrent;
using System.Globalization;
using Microsoft.Extensions.Logging;
using Snapper.Diagnostics;
using Snapper.Protocol;

namespace Snapper.Grains;

/// <summary>
/// Turns an <see cref="ActorId"/> (actor interface and key) into Orleans grain references: the
/// typed user interface for calls, <see cref="ISnapperParticipant"/> for protocol messages. The
/// key is read according to the interface's Orleans key kind.
/// </summary>
/// <remarks>
/// References are cached: making one builds a proxy (and its argument copiers), which costs more
/// than the call it is for. A reference is immutable and may be shared by every caller. Everything
/// known of an actor sits in one entry, so the several lookups a PACT makes of the same actor
/// (its declaration checked, its calls, its BatchMsg) find it in memory the first one brought in.
/// The cache is bounded (two generations of <see cref="Generation"/> entries, the older dropped as
/// a new one fills, an entry used again moved to the newer): a silo that once called a million
/// actors must not hold a million references (issue 52: idle actors cost nothing).
/// </remarks>
internal sealed class ActorResolver(IGrainFactory grains)
{
    /// <summary>Entries per generation.</summary>
    internal const int Generation = 1 << 16;

    private ConcurrentDictionary<ActorId, Entry> entries = new(KeyFirst.Instance);
    private ConcurrentDictionary<ActorId, Entry> older = new(KeyFirst.Instance);
    private int added;

    /// <summary>References held (tests).</summary>
    internal int Count => entries.Count + older.Count;

    /// <summary>The grain reference of <paramref name="id"/> as a <typeparamref name="TActor"/>.</summary>
    public TActor Get<TActor>(ActorId id)
        where TActor : IActor
    {
        if (id.IsDefault)
        {
            throw new SnapperException($"default(ActorId) names no actor; create ids with ActorId.Create<{typeof(TActor).Name}>(key).");
        }

        if (!string.Equals(id.Type, InterfaceName<TActor>.Value, StringComparison.Ordinal))
        {
            throw new SnapperException($"Actor id {id} names a {id.Type}, but it was called as a {typeof(TActor).FullName}.");
        }

        return (TActor)(Find(id) ?? Add(id, typeof(TActor))).Reference;
    }

    /// <summary>The protocol interface of transactional actor <paramref name="id"/>.</summary>
    public ISnapperParticipant Participant(ActorId id)
    {
        var entry = Known(id);
        return entry.Participant ??= grains.GetGrain<ISnapperParticipant>(entry.Reference.GetGrainId()); // a race makes two equal references
    }

    /// <summary>Sends <paramref name="message"/> to transactional actor <paramref name="actor"/>, one-way; a failure is logged to <paramref name="diagnostics"/>.</summary>
    public void Send(ActorId actor, Func<ISnapperParticipant, Task> message, ILogger diagnostics) => _ = SendAsync(actor, message, diagnostics);

    /// <summary>Whether <paramref name="id"/> names a transactional actor; throws <see cref="SnapperException"/> naming it if it names no actor.</summary>
    public bool IsTransactional(ActorId id) => Known(id).Transactional;

    private async Task SendAsync(ActorId actor, Func<ISnapperParticipant, Task> message, ILogger diagnostics)
    {
        try
        {
            await message(Participant(actor));
        }
        catch (Exception e)
        {
            LogMessages.DeliveryFailed(diagnostics, e, actor);
        }
    }

    private Entry Known(ActorId id)
    {
        if (Find(id) is { } known)
        {
            return known;
        }

        var type = id.IsDefault ? null : ActorTypes.Resolve(id.Type);
        if (type is null)
        {
            throw new SnapperException($"Actor {id} names no actor interface known here: {(id.IsDefault ? "default(ActorId)" : id.Type)} is not a loaded interface deriving from {nameof(IActor)}.");
        }

        return Add(id, type);
    }

    private Entry? Find(ActorId id)
    {
        if (Volatile.Read(ref entries).TryGetValue(id, out var known))
        {
            return known;
        }

        return Volatile.Read(ref older).TryGetValue(id, out known) ? Keep(id, known) : null;
    }

    private Entry Add(ActorId id, Type type) => Keep(id, new Entry(Reference(type, id), typeof(ITransactionalActor).IsAssignableFrom(type)));

    // Into the newer generation; once it has taken Generation entries it becomes the older one. A
    // race may drop an entry or make two equal ones: the next lookup builds it again.
    private Entry Keep(ActorId id, Entry entry)
    {
        var current = Volatile.Read(ref entries);
        var kept = current.GetOrAdd(id, entry);
        if (ReferenceEquals(kept, entry) && Interlocked.Increment(ref added) % Generation == 0)
        {
            Volatile.Write(ref older, current);
            Volatile.Write(ref entries, new ConcurrentDictionary<ActorId, Entry>(KeyFirst.Instance));
        }

        return kept;
    }

    private sealed class Entry(IAddressable reference, bool transactional)
    {
        /// <summary>By the actor's own interface (which <see cref="Get{TActor}"/> checks).</summary>
        public IAddressable Reference { get; } = reference;

        public bool Transactional { get; } = transactional;

        public ISnapperParticipant? Participant { get; set; }
    }

    // typeof(T).FullName asks the runtime on every call from shared generic code; this asks once per interface.
    private static class InterfaceName<T>
    {
        public static readonly string? Value = typeof(T).FullName;
    }

    // Every call and protocol message looks an actor up here: hashing only the key (a few
    // characters) instead of the interface's full name as well makes a lookup cheaper (measured only
    // together with AccessSet's arrays: README, "Fewer messages per PACT"). Ids
    // of different interfaces with the same key share a hash and are told apart by Equals.
    private sealed class KeyFirst : IEqualityComparer<ActorId>
    {
        public static KeyFirst Instance { get; } = new();

        public bool Equals(ActorId x, ActorId y) => x == y;

        public int GetHashCode(ActorId id) => id.IsDefault ? 0 : StringComparer.Ordinal.GetHashCode(id.Key);
    }

    private IAddressable Reference(Type type, ActorId id)
    {
        try
        {
            if (typeof(IGrainWithIntegerKey).IsAssignableFrom(type))
            {
                return grains.GetGrain(type, long.Parse(id.Key, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture));
            }

            if (typeof(IGrainWithStringKey).IsAssignableFrom(type))
            {
                return grains.GetGrain(type, id.Key);
            }

            if (typeof(IGrainWithGuidKey).IsAssignableFrom(type))
            {
                return grains.GetGrain(type, Guid.Parse(id.Key));
            }
        }
        catch (FormatException e)
        {
            throw new SnapperException($"Actor {id}: the key '{id.Key}' is not valid for {type.Name}'s Orleans key kind: {e.Message}", e);
        }
        catch (ArgumentException e)
        {
            throw new SnapperException($"Actor {id}: Orleans has no grain class implementing {type.FullName} ({e.Message}).", e);
        }

        throw new SnapperException(
            $"Actor interface {type.FullName} must also derive from an Orleans key interface: IGrainWithIntegerKey, IGrainWithStringKey or IGrainWithGuidKey.");
    }
}
