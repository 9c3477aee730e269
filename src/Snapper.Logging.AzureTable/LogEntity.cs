using System.Buffers.Binary;

namespace Snapper.Logging.AzureTable;

/// <summary>
/// One entity of a group as <see cref="AzureTableLogStorage"/> writes it: either a run of whole
/// records packed together (<see cref="Records"/> of them, the first numbered
/// <see cref="Sequence"/>), or one chunk of a record too large to share an entity.
/// </summary>
/// <remarks>
/// Why pack: a log record is usually a few hundred bytes (a BatchComplete with an account's state),
/// and one entity per record made the table service's cost per entity the log's limit: Azurite on
/// loopback took a core of its own and the silo did 1,685 SmallBank PACTs a second (7,507 packed),
/// and Azure Storage's scalability target is 2,000 entities a second per partition, which is one
/// log. Packed, a group commit of a hundred small records is one entity.
/// </remarks>
/// <param name="Sequence">The first record's sequence number; the row key is (<paramref name="Sequence"/>, <paramref name="Chunk"/>).</param>
/// <param name="Chunk">For a chunk of a large record, which one; 0 for a packed run.</param>
/// <param name="Chunks">For a chunk of a large record, how many the record has; 1 for a packed run.</param>
/// <param name="Records">For a packed run, how many records it holds; 0 for a chunk of a large record.</param>
/// <param name="Data">The entity's bytes: each record as <c>length:u32 LE | bytes</c> for a packed run, else the chunk.</param>
internal sealed record LogEntity(long Sequence, int Chunk, int Chunks, int Records, byte[] Data)
{
    private const int LengthSize = sizeof(uint);

    /// <summary>The entities of <paramref name="group"/>, whose first record is numbered <paramref name="first"/>, in row-key order.</summary>
    public static List<LogEntity> Of(IReadOnlyList<ReadOnlyMemory<byte>> group, long first, int chunkBytes)
    {
        var entities = new List<LogEntity>();
        var run = new List<ReadOnlyMemory<byte>>();
        var runStart = first;
        var runBytes = 0;
        for (var r = 0; r < group.Count; r++)
        {
            var record = group[r];
            if (LengthSize + record.Length > chunkBytes)
            {
                // Too large to share an entity: chunked on its own, as every record was before packing.
                Close();
                var chunks = (record.Length + chunkBytes - 1) / chunkBytes;
                for (var chunk = 0; chunk < chunks; chunk++)
                {
                    var data = record.Slice(chunk * chunkBytes, Math.Min(chunkBytes, record.Length - (chunk * chunkBytes))).ToArray();
                    entities.Add(new LogEntity(first + r, chunk, chunks, 0, data));
                }

                runStart = first + r + 1;
                continue;
            }

            if (runBytes + LengthSize + record.Length > chunkBytes)
            {
                Close();
                runStart = first + r;
            }

            run.Add(record);
            runBytes += LengthSize + record.Length;
        }

        Close();
        return entities;

        void Close()
        {
            if (run.Count == 0)
            {
                return;
            }

            var data = new byte[runBytes];
            var at = 0;
            foreach (var record in run)
            {
                BinaryPrimitives.WriteUInt32LittleEndian(data.AsSpan(at), (uint)record.Length);
                record.Span.CopyTo(data.AsSpan(at + LengthSize));
                at += LengthSize + record.Length;
            }

            entities.Add(new LogEntity(runStart, 0, 1, run.Count, data));
            run.Clear();
            runBytes = 0;
        }
    }

    /// <summary>The records of a packed run; null, with <paramref name="problem"/> set, if its bytes do not hold exactly <paramref name="records"/> of them.</summary>
    public static List<byte[]>? Unpack(byte[] data, int records, out string? problem)
    {
        var unpacked = new List<byte[]>(records);
        var at = 0;
        while (at < data.Length)
        {
            if (data.Length - at < LengthSize)
            {
                problem = $"{data.Length - at} byte(s) at offset {at} are too few for a record's length";
                return null;
            }

            var length = BinaryPrimitives.ReadUInt32LittleEndian(data.AsSpan(at));
            if (length > (uint)(data.Length - at - LengthSize))
            {
                problem = $"the record at offset {at} claims {length} bytes, past the entity's end";
                return null;
            }

            unpacked.Add(data.AsSpan(at + LengthSize, (int)length).ToArray());
            at += LengthSize + (int)length;
        }

        problem = unpacked.Count == records ? null : $"it holds {unpacked.Count} record(s), not the {records} it names";
        return problem is null ? unpacked : null;
    }
}
