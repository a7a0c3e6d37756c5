package io.coilgun.storage.reservoir;

import io.coilgun.storage.snapshot.SnapshotFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The event reservoir of one task (paper 4.1.1): its events in event-time order, in compressed immutable chunks
 * on local disk, with a small in-memory part: the open chunk (about one lateness of events), the iterators'
 * current chunks and a bounded chunk cache. Memory does not depend on how far back windows reach.
 *
 * <p>Events are ordered by key {@code (time, seq)}; {@code seq} is the event's Kafka offset, so the order is the
 * same on every replay. Let {@code S} be the stream time and {@code L} the lateness. An event is accepted only if
 * {@code t >= S - L}, so events at {@code t <= S - L} are final: no new event can come before them. Chunks are
 * cut from that final prefix of the open chunk, when it reaches the target size or grows old, and handed to the
 * writer thread ({@link ReservoirIO}); until written they are read from memory.
 *
 * <p>Durability, with the owner's checkpoints ({@link #checkpoint}, then {@link #committed} once the owner's state
 * is committed): arrivals are journaled, and the journal is flushed at each checkpoint, so a checkpoint captures
 * the open chunk exactly. A chunk is written only when a committed checkpoint covers all its events, and the
 * journal files it makes redundant are deleted only after it is synced. Reopened with the last checkpoint, the
 * reservoir drops a torn chunk by its checksum, takes the open chunk back from the journal, and reports in
 * {@link #lastSeq()} the Kafka offset to replay after: nothing accepted is lost, nothing is applied twice.
 *
 * <p>A <b>scratch</b> reservoir ({@link #openScratch}) has none of that: it is a backfill's or a replay's copy of
 * what it applied, thrown away at the end. It keeps no journal, and its sealed chunks stay in memory, uncompressed,
 * until retention drops them; only when they pass its memory bound are the oldest written, as a durable reservoir's.
 *
 * <p>Single-threaded: the task's processor thread calls everything here.
 */
public final class Reservoir implements AutoCloseable {
    private final Path dir;
    private final ReservoirConfig config;
    private final ReservoirIO io;
    private final ChunkCache cache;
    private final Segments segments;
    private final OpenChunk open = new OpenChunk();
    private final List<WindowIterator> iterators = new ArrayList<>();
    private final ArrayDeque<Journal.Closed> closedJournals = new ArrayDeque<>();
    private final Map<Long, Chunk> pending = new HashMap<>();
    private final ArrayDeque<ReservoirIO.WriteJob> inflight = new ArrayDeque<>();
    private final Queue<ReservoirIO.WriteJob> writeQueue = new ConcurrentLinkedQueue<>();
    private final Map<Long, CompletableFuture<Chunk>> loads = new HashMap<>();
    private final ReservoirStats stats = new ReservoirStats();
    /** Null in a scratch reservoir. */
    private Journal journal;
    /** A scratch reservoir's bound on the raw bytes of its sealed chunks in memory; 0 for a durable one. */
    private final long memoryBytes;
    /** The raw bytes of the sealed chunks a scratch reservoir holds in memory only. */
    private long inMemoryBytes;
    /** In a scratch reservoir, the oldest chunk not handed to the writer: chunks before it were (memory bound). */
    private long spillNext;
    /** A scratch reservoir handed a chunk to the writer: its discard waits for the writer. */
    private boolean spilled;

    // The index of sealed chunks, numbered firstNo .. nextNo - 1 (position p holds chunk firstNo + p).
    private long firstNo;
    private long nextNo;
    private long[] firstTimes = new long[256];
    private long[] lastTimes = new long[256];
    private long[] lastSeqs = new long[256];
    /** Per chunk, its lowest seq and its number of events (a history read knows what it has not read yet). */
    private long[] minSeqs = new long[256];
    private int[] counts = new int[256];
    private int[] segmentOf = new int[256];
    private long[] positions = new long[256];
    private int[] lengths = new int[256];

    private long streamTime;
    private long lastSeq;
    private long epoch;
    private long minIteratorLag = Long.MAX_VALUE;
    private volatile long committedSeq;
    private volatile RuntimeException writeFailure;

    private Reservoir(Path dir, ReservoirConfig config, ReservoirIO io, ChunkCache cache, long memoryBytes) {
        this.memoryBytes = memoryBytes;
        this.dir = dir;
        this.config = config;
        this.io = io;
        this.cache = cache;
        this.segments = new Segments(dir, config.segmentBytes(), memoryBytes == 0); // a scratch's are not synced
    }

    /** The stream time of a reservoir that holds nothing yet; far from overflow when windows are subtracted. */
    public static final long NO_TIME = Long.MIN_VALUE / 4;

    /**
     * Opens (or creates) the reservoir in {@code dir} at its owner's last checkpoint ({@code checkpoint}, as
     * returned by {@link #checkpoint()}; null when there is none yet).
     *
     * @param cache the chunk cache of the thread that will use the reservoir
     */
    public static Reservoir open(Path dir, ReservoirConfig config, ReservoirIO io, ChunkCache cache,
            byte[] checkpoint) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create reservoir directory " + dir, e);
        }
        Reservoir r = new Reservoir(dir, config, io, cache, 0);
        r.recover(checkpoint);
        io.register(r);
        return r;
    }

    /**
     * A new scratch reservoir in the empty directory {@code dir}: no journal, nothing to recover, no checkpoint to
     * take; its sealed chunks are kept in memory while their raw bytes stay under {@code memoryBytes} (the oldest
     * are written beyond it). For a backfill's or a replay's window iterators; {@link #discard} it at the end.
     */
    public static Reservoir openScratch(Path dir, ReservoirConfig config, ReservoirIO io, ChunkCache cache,
            long memoryBytes) {
        if (memoryBytes <= 0) {
            throw new IllegalArgumentException("a scratch reservoir needs a memory bound");
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create reservoir directory " + dir, e);
        }
        Reservoir r = new Reservoir(dir, config, io, cache, memoryBytes);
        r.streamTime = NO_TIME;
        r.lastSeq = -1;
        r.committedSeq = Long.MAX_VALUE; // nothing to wait for: a chunk past the bound is written at once
        io.register(r);
        return r;
    }

    private boolean scratch() {
        return memoryBytes > 0;
    }

    private void recover(byte[] checkpoint) {
        List<Segments.Recovered> durable = segments.recover();
        if (checkpoint == null) {
            if (!durable.isEmpty()) {
                throw new IllegalStateException("reservoir " + dir + " has chunks but its owner no checkpoint: "
                        + "the data directory is damaged");
            }
            Journal.recover(dir, -1, 0, e -> { });
            streamTime = NO_TIME;
            lastSeq = -1;
            committedSeq = -1;
            journal = Journal.start(dir, 0);
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(checkpoint);
        long journalNo = b.getLong();
        long journalSize = b.getLong();
        streamTime = b.getLong();
        lastSeq = b.getLong();
        committedSeq = lastSeq;
        for (Segments.Recovered c : durable) {
            if (nextNo == 0 && firstNo == 0 && count() == 0) {
                firstNo = c.header().no();
                nextNo = firstNo;
            }
            addToIndex(c.header().firstTime(), c.header().lastTime(), c.header().lastSeq(), c.header().minSeq(),
                    c.header().count(), c.location());
        }
        long durableTime = durable.isEmpty() ? Long.MIN_VALUE : lastTimes[count() - 1];
        long durableSeq = durable.isEmpty() ? Long.MIN_VALUE : lastSeqs[count() - 1];
        List<Journal.Closed> files = Journal.recover(dir, journalNo, journalSize, e -> {
            if (Keys.compare(e.time(), e.seq(), durableTime, durableSeq) > 0) {
                open.insert(e.time(), e.seq(), e.schema(), e.payload());
            }
        });
        for (Journal.Closed f : files) {
            if (Keys.compare(f.maxTime(), f.maxSeq(), durableTime, durableSeq) <= 0) {
                deleteQuietly(f.file());
            } else {
                closedJournals.add(f);
            }
        }
        journal = Journal.start(dir, journalNo + 1);
        open.finalize(streamTime - config.latenessMicros());
        sealReady();
    }

    private int count() {
        return (int) (nextNo - firstNo);
    }

    private void addToIndex(long firstTime, long lastTime, long lastSeqOfChunk, long minSeq, int events,
            Segments.Location at) {
        int p = count();
        if (p == firstTimes.length) {
            int n = p * 2;
            firstTimes = Arrays.copyOf(firstTimes, n);
            lastTimes = Arrays.copyOf(lastTimes, n);
            lastSeqs = Arrays.copyOf(lastSeqs, n);
            minSeqs = Arrays.copyOf(minSeqs, n);
            counts = Arrays.copyOf(counts, n);
            segmentOf = Arrays.copyOf(segmentOf, n);
            positions = Arrays.copyOf(positions, n);
            lengths = Arrays.copyOf(lengths, n);
        }
        firstTimes[p] = firstTime;
        lastTimes[p] = lastTime;
        lastSeqs[p] = lastSeqOfChunk;
        minSeqs[p] = minSeq;
        counts[p] = events;
        segmentOf[p] = at == null ? -1 : at.segment();
        positions[p] = at == null ? -1 : at.position();
        lengths[p] = at == null ? 0 : at.length();
        nextNo++;
    }

    Path dir() {
        return dir;
    }

    OpenChunk open() {
        return open;
    }

    long epoch() {
        return epoch;
    }

    long nextChunkNo() {
        return nextNo;
    }

    Segments segments() {
        return segments;
    }

    Queue<ReservoirIO.WriteJob> writeQueue() {
        return writeQueue;
    }

    long committedSeq() {
        return committedSeq;
    }

    void writeFailed(RuntimeException e) {
        writeFailure = e;
    }

    /**
     * The schema registry kept with the reservoir ({@code schemas.txt}: one line per version, {@code <version> TAB
     * <columns>}), so that its chunks, which carry schema ids, stay describable on their own. Registering a version
     * again with the same description does nothing.
     */
    public void registerSchema(int version, String columns) {
        Map<Integer, String> known = schemas();
        String was = known.get(version);
        if (columns.equals(was)) {
            return;
        }
        if (was != null) {
            throw new IllegalStateException("schema version " + version + " of " + dir + " is already (" + was
                    + "), not (" + columns + ")");
        }
        try {
            Files.writeString(dir.resolve("schemas.txt"), version + "\t" + columns + "\n",
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the schema registry of " + dir, e);
        }
    }

    /** The registered schema versions and their columns. */
    public Map<Integer, String> schemas() {
        Path f = dir.resolve("schemas.txt");
        Map<Integer, String> out = new TreeMap<>();
        if (!Files.exists(f)) {
            return out;
        }
        try {
            for (String line : Files.readAllLines(f)) {
                int tab = line.indexOf('\t');
                if (tab > 0) {
                    out.put(Integer.parseInt(line.substring(0, tab)), line.substring(tab + 1));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the schema registry of " + dir, e);
        }
        return out;
    }

    /** The task's stream time: the largest event time appended. */
    public long streamTime() {
        return streamTime;
    }

    /** The seq (Kafka offset) of the newest event held; after {@link #open}, the one to replay after. */
    public long lastSeq() {
        return lastSeq;
    }

    public ReservoirConfig config() {
        return config;
    }

    /**
     * Appends an event. Its time must not be below {@code streamTime() - lateness} (the caller applies the
     * stream's late-events policy first) and its seq must be above every seq appended before.
     */
    public void append(long time, long seq, int schema, byte[] payload) {
        if (writeFailure != null) {
            throw new IllegalStateException("reservoir " + dir + " cannot write chunks", writeFailure);
        }
        if (time < streamTime - config.latenessMicros()) {
            throw new IllegalArgumentException("event time " + time + " is late: stream time " + streamTime
                    + ", lateness " + config.latenessMicros());
        }
        if (seq <= lastSeq) {
            throw new IllegalArgumentException("seq " + seq + " is not after " + lastSeq);
        }
        collect();
        if (journal != null) {
            journal.append(time, seq, schema, payload);
        }
        int at = open.insert(time, seq, schema, payload);
        if (at < open.size() - 1) {
            epoch++; // positions in the open chunk moved
        }
        lastSeq = seq;
        if (time > streamTime) {
            streamTime = time;
        }
        if (time <= streamTime - minIteratorLag) {
            for (int i = 0; i < iterators.size(); i++) {
                iterators.get(i).noteInserted(time, seq, schema, payload);
            }
        }
        stats.appended++;
        open.finalize(streamTime - config.latenessMicros());
        sealReady();
    }

    /** Cuts chunks from the final prefix of the open chunk while it is big or old enough. */
    private void sealReady() {
        long finalHorizon = streamTime - config.latenessMicros();
        while (open.finalCount() > 0) {
            long finalBytes = open.finalize(finalHorizon);
            boolean full = finalBytes >= config.targetChunkBytes();
            boolean old = open.time(0) <= finalHorizon - config.maxChunkAgeMicros();
            if (!full && !old) {
                return;
            }
            seal(open.prefixOf(config.targetChunkBytes()));
        }
    }

    private void seal(int n) {
        Chunk chunk = open.cut(n, nextNo);
        epoch++;
        addToIndex(chunk.firstTime(), chunk.lastTime(), chunk.lastSeq(), chunk.minSeq(), chunk.count(), null);
        pending.put(chunk.no, chunk);
        stats.sealed++;
        stats.sealedRawBytes += chunk.rawBytes();
        if (scratch()) {
            inMemoryBytes += chunk.rawBytes();
            spillOverMemory();
            return;
        }
        closedJournals.add(journal.roll());
        List<Path> redundant = new ArrayList<>();
        for (Iterator<Journal.Closed> it = closedJournals.iterator(); it.hasNext(); ) {
            Journal.Closed f = it.next();
            if (Keys.compare(f.maxTime(), f.maxSeq(), chunk.lastTime(), chunk.lastSeq()) <= 0) {
                redundant.add(f.file());
                it.remove();
            }
        }
        ReservoirIO.WriteJob job = new ReservoirIO.WriteJob(chunk, redundant);
        inflight.add(job);
        writeQueue.add(job);
        io.signal();
    }

    /** A scratch reservoir over its memory bound hands its oldest chunks in memory to the writer. */
    private void spillOverMemory() {
        while (inMemoryBytes > memoryBytes && spillNext < nextNo) {
            Chunk chunk = pending.get(spillNext);
            spillNext++;
            if (chunk == null) {
                continue;
            }
            inMemoryBytes -= chunk.rawBytes();
            spilled = true;
            ReservoirIO.WriteJob job = new ReservoirIO.WriteJob(chunk, List.of());
            inflight.add(job);
            writeQueue.add(job);
            io.signal();
        }
    }

    /** Takes in what the writer finished: written chunks leave memory for the cache and are read from disk. */
    void collect() {
        ReservoirIO.WriteJob job;
        while ((job = inflight.peek()) != null && job.done) {
            inflight.poll();
            if (job.chunk == null) {
                continue;
            }
            long no = job.chunk.no;
            if (no >= firstNo) {
                int p = (int) (no - firstNo);
                segmentOf[p] = job.location.segment();
                positions[p] = job.location.position();
                lengths[p] = job.location.length();
                stats.writtenBytes += job.location.length();
            }
            Chunk c = pending.remove(no);
            if (c != null) {
                cache.put(this, c);
            }
        }
    }

    /**
     * Writes the journal's buffered arrivals and returns what the owner stores with its checkpoint; pass it to
     * {@link #open} after a restart.
     */
    public byte[] checkpoint() {
        if (journal == null) {
            throw new IllegalStateException("a scratch reservoir takes no checkpoint");
        }
        journal.flush();
        return ByteBuffer.allocate(32).putLong(journal.fileNo()).putLong(journal.flushedSize()).putLong(streamTime)
                .putLong(lastSeq).array();
    }

    /**
     * The reservoir's files, hard-linked into the new directory {@code into}, with the length of each that belongs
     * to the last checkpoint (paths prefixed with {@code prefix}): with the owner's state as committed with that
     * checkpoint they are a consistent copy of the task. Call on the owner's thread right after its commit.
     *
     * <p>The journals are linked before the segments: the writer deletes a journal only once the chunks it covers
     * are in a segment, so every event is in a journal or a segment linked here (in both is fine: recovery takes
     * from a journal only what is past the segments). A segment being written ends, at worst, in a torn chunk,
     * which recovery cuts as after a crash. {@code schemas.txt}, appended in place, is copied.
     */
    public List<SnapshotFile> snapshotTo(Path into, String prefix) {
        List<SnapshotFile> files = new ArrayList<>();
        try {
            Files.createDirectories(into);
            for (String kind : new String[] {"journal-", "segment-"}) {
                List<Path> present;
                try (var listing = Files.list(dir)) {
                    present = listing.filter(p -> p.getFileName().toString().startsWith(kind)).sorted().toList();
                }
                for (Path f : present) {
                    Path link = into.resolve(f.getFileName());
                    try {
                        Files.createLink(link, f);
                    } catch (NoSuchFileException gone) {
                        continue; // deleted meanwhile by the writer: its events are in what is linked
                    }
                    files.add(new SnapshotFile(prefix + f.getFileName(), Files.size(link)));
                }
            }
            Path schemas = dir.resolve("schemas.txt");
            if (Files.exists(schemas)) {
                Files.copy(schemas, into.resolve("schemas.txt"));
                files.add(new SnapshotFile(prefix + "schemas.txt",
                        Files.size(into.resolve("schemas.txt"))));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot snapshot reservoir " + dir + " into " + into, e);
        }
        return files;
    }

    /** The owner committed the last {@link #checkpoint()}: chunks whose events it covers may now be written. */
    public void committed() {
        if (scratch()) {
            return;
        }
        committedSeq = lastSeq;
        io.signal();
    }

    /**
     * The iterator at {@code lag} behind the stream time, shared by every window with that lag. A new one starts
     * at the current {@code S - lag}: events at or below it count as passed.
     */
    public WindowIterator iterator(long lag) {
        for (WindowIterator it : iterators) {
            if (it.lag() == lag) {
                return it;
            }
        }
        WindowIterator it = new WindowIterator(this, lag, streamTime - lag);
        iterators.add(it);
        iterators.sort(Comparator.comparingLong(WindowIterator::lag));
        minIteratorLag = Math.min(minIteratorLag, lag);
        return it;
    }

    /**
     * Passes every event with {@code afterTime < t <= untilTime} to {@code handler}, in key order: a one-shot
     * read (random access through the chunk index) for backfill, replay and inspection.
     */
    public void scan(long afterTime, long untilTime, EventHandler handler) {
        collect();
        WindowIterator it = new WindowIterator(this, 0, afterTime);
        it.subscribe(Long.MIN_VALUE, handler);
        it.advanceTo(untilTime);
    }

    /**
     * A reader of this reservoir's events from {@code fromTime} on, one chunk at a time, for a backfill or a replay
     * on the owner's thread while it keeps appending ({@link HistoryCursor}).
     */
    public HistoryCursor history(long fromTime) {
        collect();
        return new HistoryCursor(this, fromTime);
    }

    /** The number of the oldest sealed chunk still held. */
    long firstChunkNo() {
        return firstNo;
    }

    /** Chunk {@code no}'s lowest seq (it is held). */
    long minSeqOf(long no) {
        return minSeqs[(int) (no - firstNo)];
    }

    /** Chunk {@code no}'s number of events (it is held). */
    int countOf(long no) {
        return counts[(int) (no - firstNo)];
    }

    /** Distinct iterators (lags) in use. */
    public int iteratorCount() {
        return iterators.size();
    }

    /**
     * Moves every iterator to its horizon {@code S - lag}, smallest lag first, passing the events that became due
     * to their subscribers. Iterators left without subscribers are dropped.
     */
    public void advance() {
        boolean dropped = false;
        for (int i = 0; i < iterators.size(); i++) {
            WindowIterator it = iterators.get(i);
            if (!it.hasSubscribers()) {
                dropped = true;
                continue;
            }
            it.advanceTo(streamTime - it.lag());
        }
        if (dropped) {
            iterators.removeIf(it -> !it.hasSubscribers());
            minIteratorLag = iterators.stream().mapToLong(WindowIterator::lag).min().orElse(Long.MAX_VALUE);
        }
    }

    /** The first sealed chunk holding an event after {@code (time, seq)}, or -1 if that is the open chunk. */
    long firstChunkAfter(long time, long seq) {
        int lo = 0;
        int hi = count();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (Keys.compare(lastTimes[mid], lastSeqs[mid], time, seq) <= 0) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo < count() ? firstNo + lo : -1;
    }

    /** Sealed chunk {@code no}: from memory if not yet written, else the cache, a read-ahead, or the disk. */
    Chunk chunk(long no) {
        return chunk(no, true);
    }

    /**
     * Sealed chunk {@code no}; one read from the disk goes into the cache only when {@code keep}. A history cursor
     * reads each chunk once: cached, its chunks would push out the window tails' and, living until evicted, be copied
     * by every young GC meanwhile.
     */
    Chunk chunk(long no, boolean keep) {
        Chunk c = pending.get(no);
        if (c != null) {
            stats.memoryReads++;
            return c;
        }
        c = cache.get(this, no);
        if (c != null) {
            stats.cacheHits++;
            return c;
        }
        CompletableFuture<Chunk> f = loads.remove(no);
        if (f != null) {
            if (f.isDone()) {
                stats.readAheadHits++;
            } else {
                stats.stalls++;
            }
            c = f.join();
        } else {
            stats.syncLoads++;
            byte[] frame = segments.read(location(no));
            c = ChunkCodec.decode(frame, 0, frame.length);
        }
        if (keep) {
            cache.put(this, c);
        }
        return c;
    }

    /**
     * Whether {@link #chunk}{@code (no)} would return without reading the disk or waiting for a loader; when it would
     * not, a loader is asked for the chunk, so that it is at hand a little later.
     */
    boolean chunkAtHand(long no) {
        if (pending.containsKey(no)) {
            return true;
        }
        CompletableFuture<Chunk> f = loads.get(no);
        if (f == null) {
            prefetch(no); // a cached chunk is pinned as a load already done
            f = loads.get(no);
        }
        return f == null || f.isDone();
    }

    /** Asks a loader to bring chunk {@code no} in, unless it is already at hand. */
    void prefetch(long no) {
        if (no >= nextNo || no < firstNo || pending.containsKey(no) || loads.containsKey(no)) {
            return;
        }
        Chunk cached = cache.get(this, no);
        if (cached != null) {
            // pinned for the iterator that will read it next: the cache may evict it before then
            loads.put(no, CompletableFuture.completedFuture(cached));
            return;
        }
        Segments.Location at = location(no);
        if (at == null) {
            return;
        }
        loads.put(no, io.load(segments, at));
        stats.readAheads++;
    }

    private Segments.Location location(long no) {
        int p = (int) (no - firstNo);
        return segmentOf[p] < 0 ? null : new Segments.Location(segmentOf[p], positions[p], lengths[p]);
    }

    /**
     * Retention: drops whole segments whose events are all older than {@code keepFrom} (the owner passes
     * {@code S} minus its longest window minus any backfill horizon, so no iterator still needs them). {@code S} must
     * be the stream time of a committed checkpoint (TaskPlan retains right after each): a crash goes back to the last
     * one, and the iterators of the reservoir reopened there read from its {@code S} minus their lags.
     */
    public void retainFrom(long keepFrom) {
        collect();
        int drop = 0;
        while (drop < count()) {
            int seg = segmentOf[drop];
            if (seg < 0) {
                break;
            }
            int end = drop;
            while (end < count() && segmentOf[end] == seg) {
                end++;
            }
            if (end >= count() || segmentOf[end] < 0 || lastTimes[end - 1] >= keepFrom) {
                break; // the segment may still be written to, or holds events to keep
            }
            ReservoirIO.WriteJob job = new ReservoirIO.WriteJob(seg);
            inflight.add(job);
            writeQueue.add(job);
            drop = end;
        }
        if (scratch()) {
            // then the chunks only in memory, once every chunk written before them went
            while (drop < count() && firstNo + drop >= spillNext && lastTimes[drop] < keepFrom) {
                Chunk c = pending.remove(firstNo + drop);
                if (c != null) {
                    inMemoryBytes -= c.rawBytes();
                }
                drop++;
            }
            spillNext = Math.max(spillNext, firstNo + drop);
        }
        if (drop == 0) {
            return;
        }
        for (long no = firstNo; no < firstNo + drop; no++) {
            CompletableFuture<Chunk> f = loads.remove(no);
            if (f != null) {
                f.cancel(false);
            }
        }
        int keep = count() - drop;
        System.arraycopy(firstTimes, drop, firstTimes, 0, keep);
        System.arraycopy(lastTimes, drop, lastTimes, 0, keep);
        System.arraycopy(lastSeqs, drop, lastSeqs, 0, keep);
        System.arraycopy(minSeqs, drop, minSeqs, 0, keep);
        System.arraycopy(counts, drop, counts, 0, keep);
        System.arraycopy(segmentOf, drop, segmentOf, 0, keep);
        System.arraycopy(positions, drop, positions, 0, keep);
        System.arraycopy(lengths, drop, lengths, 0, keep);
        firstNo += drop;
        stats.droppedChunks += drop;
        io.signal();
    }

    /** The time of the oldest event still held, or {@link #NO_TIME} when empty. */
    public long oldestTime() {
        if (count() > 0) {
            return firstTimes[0];
        }
        return open.size() > 0 ? open.time(0) : NO_TIME;
    }

    public ReservoirStats stats() {
        collect();
        stats.openEvents = open.size();
        stats.openBytes = open.heapBytes();
        stats.chunks = count();
        stats.pendingChunks = pending.size();
        stats.cachedChunks = cache.size();
        stats.iterators = iterators.size();
        return stats;
    }

    /** Bytes of segment files on disk. */
    public long diskBytes() {
        return segments.diskBytes();
    }

    private static void deleteQuietly(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + f, e);
        }
    }

    /**
     * Tests only: drops the reservoir as a crash would. Buffered journal records and chunks not yet written are
     * lost; the writer stops touching it.
     */
    void abandonForTest() {
        io.unregisterAndWait(this);
        if (journal != null) {
            journal.abandon();
        }
        for (CompletableFuture<Chunk> f : loads.values()) {
            f.cancel(false);
        }
        cache.removeOwner(this);
        segments.close();
    }

    /**
     * Releases the reservoir without writing anything more (its stream is being dropped): the writer stops
     * touching it before this returns, so the caller may then delete the directory.
     */
    public void discard() {
        if (scratch() && !spilled) {
            io.unregister(this); // the writer never had anything of it: no need to wait for what it is writing
        } else {
            io.unregisterAndWait(this);
        }
        if (journal != null) {
            journal.abandon();
        }
        for (CompletableFuture<Chunk> f : loads.values()) {
            f.cancel(false);
        }
        cache.removeOwner(this);
        segments.close();
    }

    /**
     * Closes the journal, lets the writer finish the chunks it may write (bounded wait), and releases files. Call
     * after the owner's last checkpoint.
     */
    @Override
    public void close() {
        try {
            if (journal != null) {
                journal.close();
            }
            long deadline = System.currentTimeMillis() + 10_000;
            for (ReservoirIO.WriteJob job : inflight) {
                if (job.maxSeq > committedSeq) {
                    break;
                }
                while (!job.done && writeFailure == null && System.currentTimeMillis() < deadline) {
                    io.signal();
                    Thread.onSpinWait();
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
        } finally {
            io.unregister(this);
            for (CompletableFuture<Chunk> f : loads.values()) {
                f.cancel(false);
            }
            cache.removeOwner(this);
            segments.close();
        }
    }
}
