using System.Buffers;
using System.Buffers.Binary;
using System.Collections.Immutable;
using System.Text;

namespace Snapper.Logging;

/// <summary>
/// The binary form of a <see cref="LogRecord"/>: <c>version:u8 kind:u8 tid:i64</c> then the kind's
/// fields; strings and byte strings are prefixed with their length (u32, little-endian). Framing
/// (length, checksum) belongs to the log storage, not to the record.
/// </summary>
/// <remarks>
/// <see cref="CurrentVersion"/> is written into every record, so a later build can keep reading
/// old logs: once a build has shipped, every later one must keep decoding the versions it wrote.
/// This build reads only its own.
/// </remarks>
internal static class LogRecordCodec
{
    /// <summary>The format version this build writes.</summary>
    public const byte CurrentVersion = 1;

    /// <summary>Encodes a record into a new array.</summary>
    public static byte[] Encode(LogRecord record)
    {
        var buffer = new ArrayBufferWriter<byte>(64);
        Encode(record, buffer);
        return buffer.WrittenSpan.ToArray();
    }

    /// <summary>Encodes a record into <paramref name="output"/>.</summary>
    public static void Encode(LogRecord record, IBufferWriter<byte> output)
    {
        ArgumentNullException.ThrowIfNull(record);
        var head = output.GetSpan(10);
        head[0] = CurrentVersion;
        head[1] = (byte)record.Kind;
        BinaryPrimitives.WriteInt64LittleEndian(head[2..], record.Tid);
        output.Advance(10);

        switch (record)
        {
            case CoordPrepareRecord r:
                WriteActors(output, r.Participants);
                break;
            case PrepareRecord r:
                WriteActor(output, r.Actor);
                WriteActor(output, r.Coordinator);
                WriteImage(output, r.State.Span, r.Version, r.Delta);
                break;
            case CoordCommitRecord r:
                WriteInt64s(output, r.DependsOn);
                break;
            case CommitRecord r:
                WriteActor(output, r.Actor);
                WriteImage(output, r.State.Span, r.Version, r.Delta);
                break;
            case BatchInfoRecord r:
                WriteString(output, r.Coordinator);
                WriteActors(output, r.Participants);
                break;
            case BatchCompleteRecord r:
                WriteActor(output, r.Actor);
                WriteString(output, r.Coordinator);
                WriteImage(output, r.State.Span, r.Version, r.Delta);
                break;
            case BatchCommitRecord r:
                WriteInt64(output, r.DependsOn);
                break;
            case TidReservationRecord:
                break;
            case CheckpointSealRecord:
                break;
            case CommittedDecisionsRecord r:
                WriteInt64s(output, r.Acts);
                WriteInt64s(output, r.Batches);
                break;
            case AfterCommitRecord r:
                WriteFlag(output, r.Batch);
                WriteUInt32(output, (uint)r.Actions.Length);
                foreach (var action in r.Actions)
                {
                    WriteActionId(output, action.Id);
                    WriteBytes(output, action.Message);
                }

                break;
            case DeliveredRecord r:
                WriteUInt32(output, (uint)r.Actions.Length);
                foreach (var id in r.Actions)
                {
                    WriteActionId(output, id);
                }

                break;
            default:
                throw new ArgumentException($"No encoding for log record type {record.GetType().Name}.", nameof(record));
        }
    }

    /// <summary>
    /// The kind and tid of an encoded record without decoding the rest, for readers that decode
    /// only the kinds they need (recovery, checkpoints); throws <see cref="InvalidDataException"/>
    /// for a version this build does not read or a record too short for its header.
    /// </summary>
    public static (LogRecordKind Kind, long Tid) Peek(ReadOnlySpan<byte> data)
    {
        var reader = new Reader(data);
        reader.Version();
        return ((LogRecordKind)reader.Byte(), reader.Int64());
    }

    /// <summary>Decodes one record; throws <see cref="InvalidDataException"/> naming what is wrong.</summary>
    public static LogRecord Decode(ReadOnlySpan<byte> data)
    {
        var reader = new Reader(data);
        reader.Version();
        var kind = (LogRecordKind)reader.Byte();
        var tid = reader.Int64();
        LogRecord record = kind switch
        {
            LogRecordKind.CoordPrepare => new CoordPrepareRecord(tid, reader.Actors()),
            LogRecordKind.Prepare => new PrepareRecord(tid, reader.Actor(), reader.Actor(), reader.Bytes()) { Version = reader.Int64(), Delta = reader.Delta() },
            LogRecordKind.CoordCommit => new CoordCommitRecord(tid) { DependsOn = reader.Int64s() },
            LogRecordKind.Commit => new CommitRecord(tid, reader.Actor(), reader.Bytes()) { Version = reader.Int64(), Delta = reader.Delta() },
            LogRecordKind.BatchInfo => new BatchInfoRecord(tid, reader.String(), reader.Actors()),
            LogRecordKind.BatchComplete => new BatchCompleteRecord(tid, reader.Actor(), reader.String(), reader.Bytes()) { Version = reader.Int64(), Delta = reader.Delta() },
            LogRecordKind.BatchCommit => new BatchCommitRecord(tid) { DependsOn = reader.Int64() },
            LogRecordKind.TidReservation => new TidReservationRecord(tid),
            LogRecordKind.CheckpointSeal => new CheckpointSealRecord(tid),
            LogRecordKind.CommittedDecisions => new CommittedDecisionsRecord(tid) { Acts = reader.Int64s(), Batches = reader.Int64s() },
            LogRecordKind.AfterCommit => new AfterCommitRecord(tid, reader.Decider(), reader.Actions()),
            LogRecordKind.Delivered => new DeliveredRecord(tid, reader.ActionIds()),
            _ => throw new InvalidDataException($"Log record of transaction {tid} has unknown kind {(byte)kind}."),
        };
        reader.EnsureEnd(kind);
        return record;
    }

    /// <summary>An actor's state as a record carries it: the bytes, their version, and whether they are a delta.</summary>
    private static void WriteImage(IBufferWriter<byte> output, ReadOnlySpan<byte> state, long version, bool delta)
    {
        WriteBytes(output, state);
        WriteInt64(output, version);
        WriteFlag(output, delta);
    }

    private static void WriteFlag(IBufferWriter<byte> output, bool value)
    {
        output.GetSpan(1)[0] = value ? (byte)1 : (byte)0;
        output.Advance(1);
    }

    private static void WriteUInt32(IBufferWriter<byte> output, uint value)
    {
        BinaryPrimitives.WriteUInt32LittleEndian(output.GetSpan(4), value);
        output.Advance(4);
    }

    private static void WriteInt64s(IBufferWriter<byte> output, ImmutableArray<long> values)
    {
        WriteUInt32(output, (uint)values.Length);
        foreach (var value in values)
        {
            WriteInt64(output, value);
        }
    }

    private static void WriteBytes(IBufferWriter<byte> output, ReadOnlySpan<byte> bytes)
    {
        WriteUInt32(output, (uint)bytes.Length);
        output.Write(bytes);
    }

    private static void WriteInt64(IBufferWriter<byte> output, long value)
    {
        BinaryPrimitives.WriteInt64LittleEndian(output.GetSpan(8), value);
        output.Advance(8);
    }

    private static void WriteString(IBufferWriter<byte> output, string value)
    {
        var length = Encoding.UTF8.GetByteCount(value);
        WriteUInt32(output, (uint)length);
        Encoding.UTF8.GetBytes(value, output.GetSpan(length));
        output.Advance(length);
    }

    private static void WriteActor(IBufferWriter<byte> output, ActorId actor)
    {
        WriteString(output, actor.Type);
        WriteString(output, actor.Key);
    }

    private static void WriteActionId(IBufferWriter<byte> output, AfterCommitId id)
    {
        WriteInt64(output, id.Tid);
        WriteActor(output, id.Actor);
        WriteUInt32(output, (uint)id.Seq);
    }

    private static void WriteActors(IBufferWriter<byte> output, ImmutableArray<ActorId> actors)
    {
        WriteUInt32(output, (uint)actors.Length);
        foreach (var actor in actors)
        {
            WriteActor(output, actor);
        }
    }

    private ref struct Reader(ReadOnlySpan<byte> data)
    {
        private readonly ReadOnlySpan<byte> data = data;
        private int at;

        public byte Byte() => Take(1)[0];

        /// <summary>The record's format version, refused unless this build reads it.</summary>
        public void Version()
        {
            var version = Byte();
            if (version != CurrentVersion)
            {
                throw new InvalidDataException($"Log record has format version {version}; this build reads version {CurrentVersion}.");
            }
        }

        public long Int64() => BinaryPrimitives.ReadInt64LittleEndian(Take(8));

        public ReadOnlyMemory<byte> Bytes() => Take(Length()).ToArray();

        public ActorId Actor() => ActorId.FromParts(String(), String());

        /// <summary>Whether a written state is a delta or whole.</summary>
        public bool Delta() => Byte() switch
        {
            0 => false,
            1 => true,
            var other => throw new InvalidDataException($"Log record's state form is {other}; expected 0 (whole) or 1 (delta)."),
        };

        /// <summary>Whose decision an <see cref="AfterCommitRecord"/>'s actions follow: an ACT's (0) or a batch's (1).</summary>
        public bool Decider() => Byte() switch
        {
            0 => false,
            1 => true,
            var other => throw new InvalidDataException($"AfterCommit log record's decider is {other}; expected 0 (an ACT) or 1 (a batch)."),
        };

        public ImmutableArray<long> Int64s()
        {
            var count = Length();
            var values = ImmutableArray.CreateBuilder<long>(Math.Min(count, 1024));
            for (var i = 0; i < count; i++)
            {
                values.Add(Int64());
            }

            return values.ToImmutable();
        }

        public AfterCommitId ActionId() => new(Int64(), Actor(), (int)BinaryPrimitives.ReadUInt32LittleEndian(Take(4)));

        public ImmutableArray<AfterCommitId> ActionIds()
        {
            var count = Length();
            var ids = ImmutableArray.CreateBuilder<AfterCommitId>(Math.Min(count, 1024));
            for (var i = 0; i < count; i++)
            {
                ids.Add(ActionId());
            }

            return ids.ToImmutable();
        }

        public ImmutableArray<AfterCommitAction> Actions()
        {
            var count = Length();
            var actions = ImmutableArray.CreateBuilder<AfterCommitAction>(Math.Min(count, 1024));
            for (var i = 0; i < count; i++)
            {
                var id = ActionId();
                actions.Add(new AfterCommitAction(id.Tid, id.Actor, id.Seq, Take(Length()).ToArray()));
            }

            return actions.ToImmutable();
        }

        public ImmutableArray<ActorId> Actors()
        {
            var count = Length();
            var actors = ImmutableArray.CreateBuilder<ActorId>(Math.Min(count, 1024));
            for (var i = 0; i < count; i++)
            {
                actors.Add(Actor());
            }

            return actors.ToImmutable();
        }

        public readonly void EnsureEnd(LogRecordKind kind)
        {
            if (at != data.Length)
            {
                throw new InvalidDataException($"{kind} log record has {data.Length - at} unexpected trailing bytes.");
            }
        }

        public string String() => Encoding.UTF8.GetString(Take(Length()));

        private int Length()
        {
            var length = BinaryPrimitives.ReadUInt32LittleEndian(Take(4));
            if (length > (uint)(data.Length - at))
            {
                throw new InvalidDataException($"Log record field claims {length} bytes but only {data.Length - at} remain.");
            }

            return (int)length;
        }

        private ReadOnlySpan<byte> Take(int count)
        {
            if (count > data.Length - at)
            {
                throw new InvalidDataException($"Log record is truncated: needed {count} more bytes at offset {at} of {data.Length}.");
            }

            var span = data.Slice(at, count);
            at += count;
            return span;
        }
    }
}
