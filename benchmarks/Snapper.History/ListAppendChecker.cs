using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;

namespace Snapper.History;

/// <summary>
/// Elle-style checker for the list-append workload: every transaction appends its tid to the lists of its
/// actors and observes, per actor, the list's length and last tid before its append. Given the history and
/// the lists read back at the end, it checks that committed appends landed exactly once where they were
/// observed, that aborted appends are invisible, that unknown-outcome transactions are all-or-nothing, that
/// every list element is accounted for, and that the precedence graph (list order on every actor) is acyclic,
/// i.e. some serial order explains every list.
/// </summary>
/// <remarks>
/// Runs in time and memory linear in the history and the dump; the cycle search is an iterative Tarjan SCC,
/// so histories with millions of tids need no deep stack.
/// </remarks>
public static class ListAppendChecker
{
    /// <summary>The default cap on reported violations per <see cref="ViolationKind"/>; all are counted.</summary>
    public const int DefaultMaxReportedPerKind = 100;

    private const int MaxCycleStepsShown = 32;

    /// <summary>Checks <paramref name="history"/> against the final lists in <paramref name="dump"/>.</summary>
    /// <param name="history">One entry per finished transaction.</param>
    /// <param name="dump">Every actor's list, read back at the end: actor → tids in list order.</param>
    /// <returns>The violations found (at most <see cref="DefaultMaxReportedPerKind"/> reported per kind) and statistics.</returns>
    public static CheckResult Check(IReadOnlyList<HistoryEntry> history, IReadOnlyDictionary<string, IReadOnlyList<long>> dump) =>
        Check(history, dump, DefaultMaxReportedPerKind);

    /// <summary>Checks <paramref name="history"/> against the final lists in <paramref name="dump"/>.</summary>
    /// <param name="history">One entry per finished transaction.</param>
    /// <param name="dump">Every actor's list, read back at the end: actor → tids in list order.</param>
    /// <param name="maxReportedPerKind">How many violations of each kind to report; all are counted.</param>
    /// <returns>The violations found and statistics.</returns>
    public static CheckResult Check(
        IReadOnlyList<HistoryEntry> history,
        IReadOnlyDictionary<string, IReadOnlyList<long>> dump,
        int maxReportedPerKind)
    {
        ArgumentNullException.ThrowIfNull(history);
        ArgumentNullException.ThrowIfNull(dump);
        ArgumentOutOfRangeException.ThrowIfNegative(maxReportedPerKind);
        return new Run(history, dump, maxReportedPerKind).Execute();
    }

    /// <summary>One check: all the working state, so the algorithm can be split into steps.</summary>
    private sealed class Run(IReadOnlyList<HistoryEntry> history, IReadOnlyDictionary<string, IReadOnlyList<long>> dump, int max)
    {
        private readonly long[] _counts = new long[Enum.GetValues<ViolationKind>().Length];
        private readonly List<Violation> _violations = [];

        // Nodes: one per distinct tid, history tids first (in history order), then tids only the dump mentions.
        private readonly Dictionary<long, int> _nodeOfTid = new(history.Count);
        private readonly List<long> _nodeTid = new(history.Count);
        private readonly List<int> _nodeEntry = new(history.Count); // index into history, or -1

        // Lists, in ordinal actor order.
        private string[] _actorNames = [];
        private Dictionary<string, int> _actorIds = new(StringComparer.Ordinal);
        private IReadOnlyList<long>[] _lists = [];
        private int[][] _listNodes = [];
        private long _elementCount;

        // Occurrences of each node in the lists (CSR, sorted by actor then position).
        private int[] _occStart = [];
        private int[] _occActor = [];
        private int[] _occPos = [];

        // Precedence graph (CSR by source).
        private int[] _outStart = [];
        private int[] _edgeTo = [];
        private int[] _edgeActor = [];

        // Per-entry scratch: declared actor → slot.
        private int[] _slotOfActor = [];
        private readonly List<Slot> _slots = [];

        private int _committed;
        private int _aborted;
        private int _unknown;
        private int _unknownVisible;
        private int _unknownAbsent;

        public CheckResult Execute()
        {
            IndexHistory();
            IndexLists();
            IndexOccurrences();
            CheckNodes();
            BuildGraph();
            FindCycles();

            var counts = new Dictionary<ViolationKind, long>();
            foreach (var kind in Enum.GetValues<ViolationKind>())
            {
                if (_counts[(int)kind] > 0)
                {
                    counts[kind] = _counts[(int)kind];
                }
            }

            return new CheckResult(_violations, counts, max)
            {
                CommittedCount = _committed,
                AbortedCount = _aborted,
                UnknownCount = _unknown,
                UnknownVisibleCount = _unknownVisible,
                UnknownAbsentCount = _unknownAbsent,
                ListCount = _lists.Length,
                ElementCount = _elementCount,
                EdgeCount = _edgeTo.Length,
            };
        }

        // ---------------------------------------------------------------- indexing

        private void IndexHistory()
        {
            for (var i = 0; i < history.Count; i++)
            {
                var entry = history[i] ?? throw new ArgumentException($"History entry #{i} is null.", nameof(history));
                switch (entry.Status)
                {
                    case TransactionStatus.Committed: _committed++; break;
                    case TransactionStatus.Aborted: _aborted++; break;
                    case TransactionStatus.Unknown: _unknown++; break;
                    default: throw new ArgumentException($"History entry #{i} (tid {entry.Tid}) has undefined status {(int)entry.Status}.", nameof(history));
                }

                if (_nodeOfTid.TryGetValue(entry.Tid, out var existing))
                {
                    if (Record(ViolationKind.MalformedHistory))
                    {
                        var first = history[_nodeEntry[existing]];
                        Report(ViolationKind.MalformedHistory,
                            $"tid {entry.Tid} has more than one history entry: #{_nodeEntry[existing]} ({Describe(first)}) and #{i} ({Describe(entry)}); only the first is checked",
                            [entry.Tid], []);
                    }

                    continue;
                }

                _nodeOfTid.Add(entry.Tid, _nodeTid.Count);
                _nodeTid.Add(entry.Tid);
                _nodeEntry.Add(i);
            }
        }

        private void IndexLists()
        {
            _actorNames = [.. dump.Keys.Order(StringComparer.Ordinal)];
            _lists = new IReadOnlyList<long>[_actorNames.Length];
            _listNodes = new int[_actorNames.Length][];
            _actorIds = new Dictionary<string, int>(_actorNames.Length, StringComparer.Ordinal);
            for (var a = 0; a < _actorNames.Length; a++)
            {
                var name = _actorNames[a];
                _actorIds.Add(name, a);
                var list = dump[name] ?? throw new ArgumentException($"The dump's list for actor '{name}' is null.", nameof(dump));
                _lists[a] = list;
                var nodes = new int[list.Count];
                for (var p = 0; p < nodes.Length; p++)
                {
                    var tid = list[p];
                    if (!_nodeOfTid.TryGetValue(tid, out var node))
                    {
                        node = _nodeTid.Count;
                        _nodeOfTid.Add(tid, node);
                        _nodeTid.Add(tid);
                        _nodeEntry.Add(-1);
                    }

                    nodes[p] = node;
                }

                _listNodes[a] = nodes;
                _elementCount += nodes.Length;
            }

            if (_elementCount > Array.MaxLength)
            {
                throw new NotSupportedException($"The dump holds {_elementCount} elements; at most {Array.MaxLength} are supported.");
            }

            _slotOfActor = new int[_actorNames.Length];
            Array.Fill(_slotOfActor, -1);
        }

        private void IndexOccurrences()
        {
            var nodeCount = _nodeTid.Count;
            _occStart = new int[nodeCount + 1];
            foreach (var nodes in _listNodes)
            {
                foreach (var node in nodes)
                {
                    _occStart[node + 1]++;
                }
            }

            for (var n = 0; n < nodeCount; n++)
            {
                _occStart[n + 1] += _occStart[n];
            }

            _occActor = new int[_elementCount];
            _occPos = new int[_elementCount];
            var cursor = _occStart[..nodeCount];
            for (var a = 0; a < _listNodes.Length; a++)
            {
                var nodes = _listNodes[a];
                for (var p = 0; p < nodes.Length; p++)
                {
                    var slot = cursor[nodes[p]]++;
                    _occActor[slot] = a;
                    _occPos[slot] = p;
                }
            }
        }

        // ---------------------------------------------------------------- per-transaction checks

        private void CheckNodes()
        {
            var nodeEntries = CollectionsMarshal.AsSpan(_nodeEntry);
            for (var n = 0; n < nodeEntries.Length; n++)
            {
                var begin = _occStart[n];
                var end = _occStart[n + 1];
                var tid = _nodeTid[n];

                // A tid appears at most once per list, whatever its status.
                for (var i = begin; i < end;)
                {
                    var j = RunEnd(i, end);
                    if (j - i > 1 && Record(ViolationKind.DuplicateAppend))
                    {
                        var actor = _actorNames[_occActor[i]];
                        Report(ViolationKind.DuplicateAppend,
                            $"tid {tid} appears {j - i} times in list {actor}, at positions {Positions(i, j)}",
                            [tid], [actor]);
                    }

                    i = j;
                }

                var entryIndex = nodeEntries[n];
                if (entryIndex < 0)
                {
                    for (var i = begin; i < end;)
                    {
                        var j = RunEnd(i, end);
                        if (Record(ViolationKind.UnknownTid))
                        {
                            var actor = _actorNames[_occActor[i]];
                            Report(ViolationKind.UnknownTid,
                                $"list {actor} holds tid {tid} at position {Positions(i, j)}, but the history never mentions tid {tid}",
                                [tid], [actor]);
                        }

                        i = j;
                    }

                    continue;
                }

                var entry = history[entryIndex];
                switch (entry.Status)
                {
                    case TransactionStatus.Aborted:
                        CheckAborted(entry, begin, end);
                        break;
                    case TransactionStatus.Committed:
                        CheckDeclared(entry, begin, end, committed: true);
                        break;
                    default:
                        CheckDeclared(entry, begin, end, committed: false);
                        break;
                }
            }
        }

        private void CheckAborted(HistoryEntry entry, int begin, int end)
        {
            for (var i = begin; i < end;)
            {
                var j = RunEnd(i, end);
                if (Record(ViolationKind.AbortedAppendVisible))
                {
                    var actor = _actorNames[_occActor[i]];
                    var reason = entry.AbortReason is null ? "no reason given" : $"reason: {entry.AbortReason}";
                    Report(ViolationKind.AbortedAppendVisible,
                        $"aborted tid {entry.Tid} (mode {entry.Mode}, {reason}) is visible in list {actor} at position {Positions(i, j)}",
                        [entry.Tid], [actor]);
                }

                i = j;
            }
        }

        /// <summary>Checks a committed or unknown-outcome transaction against the lists of its declared actors.</summary>
        private void CheckDeclared(HistoryEntry entry, int begin, int end, bool committed)
        {
            var tid = entry.Tid;
            var status = committed ? "committed" : "unknown-outcome";
            _slots.Clear();
            try
            {
                // Map every declared actor to a slot.
                foreach (var actor in entry.Actors)
                {
                    var actorId = actor is not null && _actorIds.TryGetValue(actor, out var id) ? id : -1;
                    if (actorId >= 0 ? _slotOfActor[actorId] >= 0 : FindSlot(CollectionsMarshal.AsSpan(_slots), actor ?? "null") >= 0)
                    {
                        if (Record(ViolationKind.MalformedHistory))
                        {
                            Report(ViolationKind.MalformedHistory,
                                $"{status} tid {tid} declares actor {actor} more than once (actors [{string.Join(", ", entry.Actors)}])",
                                [tid], [actor ?? "null"]);
                        }

                        continue;
                    }

                    if (actorId >= 0)
                    {
                        _slotOfActor[actorId] = _slots.Count;
                    }

                    _slots.Add(new Slot(actor ?? "null", actorId));
                }

                // Match the lists the tid appears in against the declared actors.
                var slots = CollectionsMarshal.AsSpan(_slots);
                for (var i = begin; i < end;)
                {
                    var j = RunEnd(i, end);
                    var actorId = _occActor[i];
                    var slot = _slotOfActor[actorId];
                    if (slot >= 0)
                    {
                        slots[slot].OccBegin = i;
                        slots[slot].OccEnd = j;
                    }
                    else if (Record(ViolationKind.AppendOutsideDeclaredActors))
                    {
                        var actor = _actorNames[actorId];
                        Report(ViolationKind.AppendOutsideDeclaredActors,
                            $"{status} tid {tid} appears in list {actor} at position {Positions(i, j)}, but declares only actors [{string.Join(", ", entry.Actors)}]",
                            [tid], [actor]);
                    }

                    i = j;
                }

                if (committed)
                {
                    AttachObservations(entry, slots);
                    foreach (ref var slot in slots)
                    {
                        CheckCommittedAppend(entry, ref slot);
                    }
                }
                else
                {
                    CheckUnknown(entry, slots, anyOccurrence: end > begin);
                }
            }
            finally
            {
                foreach (var slot in _slots)
                {
                    if (slot.ActorId >= 0)
                    {
                        _slotOfActor[slot.ActorId] = -1;
                    }
                }
            }
        }

        private void AttachObservations(HistoryEntry entry, Span<Slot> slots)
        {
            foreach (var append in entry.Appends)
            {
                var index = append is null ? -1 : FindSlot(slots, append.Actor);
                string? problem = null;
                if (append is null)
                {
                    problem = "has a null append observation";
                }
                else if (index < 0)
                {
                    problem = $"has an append observation for actor {append.Actor}, which it does not declare (actors [{string.Join(", ", entry.Actors)}])";
                }
                else if (slots[index].Observation is not null)
                {
                    problem = $"has more than one append observation for actor {append.Actor}; only the first is checked";
                }
                else if (append.PrefixLen < 0)
                {
                    problem = $"observed a negative prefixLen {append.PrefixLen} on actor {append.Actor}";
                    slots[index].ObservationInvalid = true;
                }
                else if (append.PrefixLen == 0 && append.PrevTid is not null)
                {
                    problem = $"observed prefixLen 0 but prevTid {append.PrevTid} on actor {append.Actor}";
                    slots[index].ObservationInvalid = true;
                }
                else
                {
                    slots[index].Observation = append;
                }

                if (problem is not null && Record(ViolationKind.MalformedHistory))
                {
                    Report(ViolationKind.MalformedHistory, $"committed tid {entry.Tid} {problem}", [entry.Tid], append?.Actor is { } a ? [a] : []);
                }
            }
        }

        private void CheckCommittedAppend(HistoryEntry entry, ref Slot slot)
        {
            var tid = entry.Tid;
            var obs = slot.Observation;
            if (slot.ActorId < 0)
            {
                if (Record(ViolationKind.LostAppend))
                {
                    Report(ViolationKind.LostAppend,
                        $"committed tid {tid} declares actor {slot.Name}, but the dump has no list for {slot.Name}{Observed(obs)}",
                        [tid], [slot.Name]);
                }

                return;
            }

            var list = _lists[slot.ActorId];
            var count = slot.OccEnd - slot.OccBegin;
            if (count == 0)
            {
                if (Record(ViolationKind.LostAppend))
                {
                    Report(ViolationKind.LostAppend,
                        $"committed tid {tid} is missing from list {slot.Name} (length {list.Count}){Observed(obs)}",
                        [tid], [slot.Name]);
                }

                return;
            }

            if (obs is null)
            {
                if (!slot.ObservationInvalid && Record(ViolationKind.MalformedHistory))
                {
                    Report(ViolationKind.MalformedHistory,
                        $"committed tid {tid} declares actor {slot.Name} but has no append observation for it; its position there is not checked",
                        [tid], [slot.Name]);
                }

                return;
            }

            if (count > 1)
            {
                return; // DuplicateAppend already reported; no single position to check.
            }

            var pos = _occPos[slot.OccBegin];
            var expectedPrev = obs.PrefixLen == 0 ? (long?)null : AtOrNull(list, obs.PrefixLen - 1);
            if (pos == obs.PrefixLen && expectedPrev == obs.PrevTid)
            {
                return;
            }

            if (Record(ViolationKind.WrongPosition))
            {
                var actualPrev = pos == 0 ? "at the head" : $"after tid {list[pos - 1]}";
                var detail = new StringBuilder();
                detail.Append(CultureInfo.InvariantCulture,
                    $"committed tid {tid} observed prefixLen {obs.PrefixLen} and prevTid {Tid(obs.PrevTid)} on {slot.Name}, but list {slot.Name} holds it at position {pos} {actualPrev}");
                if (pos != obs.PrefixLen && obs.PrefixLen > 0)
                {
                    if (expectedPrev is { } seen)
                    {
                        detail.Append(CultureInfo.InvariantCulture, $"; position {obs.PrefixLen - 1}, where it saw its prevTid, holds {seen}");
                    }
                    else
                    {
                        detail.Append(CultureInfo.InvariantCulture, $"; the list has only {list.Count} elements");
                    }
                }

                var tids = new List<long> { tid };
                if (obs.PrevTid is { } p)
                {
                    tids.Add(p);
                }

                Report(ViolationKind.WrongPosition, detail.ToString(), tids, [slot.Name]);
            }
        }

        private void CheckUnknown(HistoryEntry entry, Span<Slot> slots, bool anyOccurrence)
        {
            var present = 0;
            foreach (var slot in slots)
            {
                if (slot.OccEnd > slot.OccBegin)
                {
                    present++;
                }
            }

            if (present == 0)
            {
                if (!anyOccurrence)
                {
                    _unknownAbsent++;
                }

                return;
            }

            if (present == slots.Length)
            {
                _unknownVisible++;
                return;
            }

            if (Record(ViolationKind.PartialUnknown))
            {
                var with = new List<string>();
                var without = new List<string>();
                foreach (var slot in slots)
                {
                    if (slot.OccEnd > slot.OccBegin)
                    {
                        with.Add(string.Create(CultureInfo.InvariantCulture, $"{slot.Name}@{Positions(slot.OccBegin, slot.OccEnd)}"));
                    }
                    else
                    {
                        without.Add(slot.ActorId < 0 ? $"{slot.Name} (no list in dump)" : slot.Name);
                    }
                }

                Report(ViolationKind.PartialUnknown,
                    $"unknown-outcome tid {entry.Tid} is in [{string.Join(", ", with)}] but not in [{string.Join(", ", without)}]; it must be in all of its actors' lists or in none",
                    [entry.Tid], [.. slots.ToArray().Select(s => s.Name)]);
            }
        }

        // ---------------------------------------------------------------- precedence graph and cycles

        private void BuildGraph()
        {
            var nodeCount = _nodeTid.Count;
            var stamp = new int[nodeCount];
            _outStart = new int[nodeCount + 1];

            // Pass 1 counts out-degrees, pass 2 fills. Within a list only a tid's first occurrence is kept, so
            // duplicates (reported as DuplicateAppend) neither create self-loops nor single-list cycles.
            for (var pass = 1; pass <= 2; pass++)
            {
                var cursor = pass == 2 ? _outStart[..nodeCount] : [];
                for (var a = 0; a < _listNodes.Length; a++)
                {
                    var mark = pass == 1 ? a + 1 : -(a + 1);
                    var prev = -1;
                    foreach (var node in _listNodes[a])
                    {
                        if (stamp[node] == mark)
                        {
                            continue;
                        }

                        stamp[node] = mark;
                        if (prev >= 0)
                        {
                            if (pass == 1)
                            {
                                _outStart[prev + 1]++;
                            }
                            else
                            {
                                var e = cursor[prev]++;
                                _edgeTo[e] = node;
                                _edgeActor[e] = a;
                            }
                        }

                        prev = node;
                    }
                }

                if (pass == 1)
                {
                    for (var n = 0; n < nodeCount; n++)
                    {
                        _outStart[n + 1] += _outStart[n];
                    }

                    _edgeTo = new int[_outStart[nodeCount]];
                    _edgeActor = new int[_outStart[nodeCount]];
                }
            }
        }

        /// <summary>Iterative Tarjan SCC; reports one concrete cycle per strongly connected component of two or more tids.</summary>
        private void FindCycles()
        {
            var nodeCount = _nodeTid.Count;
            var index = new int[nodeCount];
            var low = new int[nodeCount];
            var comp = new int[nodeCount];
            var nextEdge = new int[nodeCount];
            var sccStack = new int[nodeCount];
            var callStack = new int[nodeCount];
            Array.Fill(index, -1);
            Array.Fill(comp, -1);
            var sccTop = 0;
            var counter = 0;
            var compCount = 0;
            var cyclic = new List<(int Root, int Comp, int Size)>();

            for (var s = 0; s < nodeCount; s++)
            {
                if (index[s] >= 0)
                {
                    continue;
                }

                var callTop = 0;
                index[s] = low[s] = counter++;
                nextEdge[s] = _outStart[s];
                sccStack[sccTop++] = s;
                callStack[callTop++] = s;

                while (callTop > 0)
                {
                    var v = callStack[callTop - 1];
                    if (nextEdge[v] < _outStart[v + 1])
                    {
                        var w = _edgeTo[nextEdge[v]++];
                        if (index[w] < 0)
                        {
                            index[w] = low[w] = counter++;
                            nextEdge[w] = _outStart[w];
                            sccStack[sccTop++] = w;
                            callStack[callTop++] = w;
                        }
                        else if (comp[w] < 0 && index[w] < low[v])
                        {
                            low[v] = index[w]; // w is still on the SCC stack
                        }

                        continue;
                    }

                    callTop--;
                    if (low[v] == index[v])
                    {
                        var size = 0;
                        int w;
                        do
                        {
                            w = sccStack[--sccTop];
                            comp[w] = compCount;
                            size++;
                        }
                        while (w != v);

                        if (size > 1)
                        {
                            cyclic.Add((v, compCount, size));
                        }

                        compCount++;
                    }

                    if (callTop > 0)
                    {
                        var u = callStack[callTop - 1];
                        if (low[v] < low[u])
                        {
                            low[u] = low[v];
                        }
                    }
                }
            }

            if (cyclic.Count == 0)
            {
                return;
            }

            // Reuse the Tarjan arrays for the witness search: index = visited mark, low = BFS parent,
            // nextEdge = actor of the parent edge, callStack = BFS queue.
            Array.Fill(index, -1);
            foreach (var (root, c, size) in cyclic)
            {
                if (Record(ViolationKind.Cycle))
                {
                    ReportCycle(root, c, size, comp, visited: index, parent: low, parentActor: nextEdge, queue: callStack);
                }
            }
        }

        private void ReportCycle(int root, int c, int sccSize, int[] comp, int[] visited, int[] parent, int[] parentActor, int[] queue)
        {
            // Breadth-first search inside the SCC for the shortest cycle through the root.
            int head = 0, tail = 0, last = -1, closingActor = -1;
            queue[tail++] = root;
            visited[root] = c;
            while (head < tail && last < 0)
            {
                var u = queue[head++];
                for (var e = _outStart[u]; e < _outStart[u + 1]; e++)
                {
                    var w = _edgeTo[e];
                    if (comp[w] != c)
                    {
                        continue;
                    }

                    if (w == root)
                    {
                        last = u;
                        closingActor = _edgeActor[e];
                        break;
                    }

                    if (visited[w] != c)
                    {
                        visited[w] = c;
                        parent[w] = u;
                        parentActor[w] = _edgeActor[e];
                        queue[tail++] = w;
                    }
                }
            }

            if (last < 0)
            {
                throw new InvalidOperationException($"Internal error: no cycle through tid {_nodeTid[root]} in its strongly connected component.");
            }

            // nodes[i] -[actors[i]]-> nodes[i + 1], and the last node -[actors[^1]]-> nodes[0].
            var nodes = new List<int>();
            var actors = new List<int>();
            for (var x = last; x != root; x = parent[x])
            {
                nodes.Add(x);
                actors.Add(parentActor[x]);
            }

            nodes.Add(root);
            nodes.Reverse();
            actors.Reverse();
            actors.Add(closingActor);

            // Start the cycle at its smallest tid, so the report is stable.
            var start = 0;
            for (var i = 1; i < nodes.Count; i++)
            {
                if (_nodeTid[nodes[i]] < _nodeTid[nodes[start]])
                {
                    start = i;
                }
            }

            var tids = new long[nodes.Count];
            var actorNames = new string[nodes.Count];
            for (var i = 0; i < nodes.Count; i++)
            {
                tids[i] = _nodeTid[nodes[(start + i) % nodes.Count]];
                actorNames[i] = _actorNames[actors[(start + i) % nodes.Count]];
            }

            var text = new StringBuilder();
            var shown = tids.Length <= MaxCycleStepsShown + 1 ? tids.Length : MaxCycleStepsShown;
            for (var i = 0; i < shown; i++)
            {
                text.Append(tids[i]).Append(" -[").Append(actorNames[i]).Append("]-> ");
            }

            if (shown < tids.Length)
            {
                text.Append(CultureInfo.InvariantCulture, $"... ({tids.Length - shown - 1} more tids) ... ")
                    .Append(tids[^1]).Append(" -[").Append(actorNames[^1]).Append("]-> ");
            }

            text.Append(tids[0]);
            var scc = sccSize == tids.Length ? string.Empty : $"; its strongly connected component holds {sccSize} tids";
            Report(ViolationKind.Cycle,
                $"{text} (a cycle of {tids.Length} tids in list order: no serial order explains these lists{scc})",
                tids, actorNames);
        }

        // ---------------------------------------------------------------- helpers

        private bool Record(ViolationKind kind) => ++_counts[(int)kind] <= max;

        private void Report(ViolationKind kind, string message, IReadOnlyList<long> tids, IReadOnlyList<string> actors) =>
            _violations.Add(new Violation(kind, message, tids, actors));

        /// <summary>End of the run of occurrences starting at <paramref name="i"/> that share its actor.</summary>
        private int RunEnd(int i, int end)
        {
            var j = i + 1;
            while (j < end && _occActor[j] == _occActor[i])
            {
                j++;
            }

            return j;
        }

        private string Positions(int begin, int end) =>
            end - begin == 1
                ? _occPos[begin].ToString(CultureInfo.InvariantCulture)
                : string.Join(", ", _occPos[begin..end]);

        /// <summary>The slot of a declared actor of the transaction being checked, or -1.</summary>
        private int FindSlot(Span<Slot> slots, string actor)
        {
            if (_actorIds.TryGetValue(actor, out var actorId))
            {
                return _slotOfActor[actorId];
            }

            for (var i = 0; i < slots.Length; i++)
            {
                if (slots[i].ActorId < 0 && string.Equals(slots[i].Name, actor, StringComparison.Ordinal))
                {
                    return i;
                }
            }

            return -1;
        }

        private static long? AtOrNull(IReadOnlyList<long> list, int i) => i >= 0 && i < list.Count ? list[i] : null;

        private static string Tid(long? tid) => tid?.ToString(CultureInfo.InvariantCulture) ?? "null";

        private static string Observed(AppendObservation? obs) =>
            obs is null ? string.Empty : $"; it observed prefixLen {obs.PrefixLen} and prevTid {Tid(obs.PrevTid)}";

        private static string Describe(HistoryEntry e) =>
            $"{e.Status.ToString().ToLowerInvariant()}, mode {e.Mode}, actors [{string.Join(", ", e.Actors)}]";
    }

    /// <summary>Scratch state for one declared actor of the transaction being checked.</summary>
    private struct Slot(string name, int actorId)
    {
        public readonly string Name = name;
        public readonly int ActorId = actorId;
        public int OccBegin;
        public int OccEnd;
        public AppendObservation? Observation;
        public bool ObservationInvalid;
    }
}
