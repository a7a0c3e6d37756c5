package io.coilgun.storage.state;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A store's changelog: the rows its {@link StateStore.Owner owners} changed in each commit, as one record appended
 * to a file of its own ({@link ChangelogFile}) before the commit's atomic batch, which says up to which record the
 * changelog counts ({@link #WRITTEN}). The processor thread so pays one sequential write per checkpoint instead of
 * one memtable insert per row; the {@link Materializer}, on a thread of its own, later writes each record's rows to
 * their families (the per-group rows of today's layout) and moves {@link #MATERIALIZED} on, in one atomic write.
 *
 * <p>A record is a RocksDB write batch in its serialized form ({@link BatchWriter}): materializing it is a write of
 * it as it is. Until a record is materialized its rows are not in their families: their owner keeps them in memory
 * (and does not read them back) until told ({@link StateStore.Owner#materialized}). Opening a store materializes
 * every record left (a crash, or a close before the materializer came by), so a store is read as before once open.
 * Records a store of release 715153c kept in a column family {@value #LEGACY_FAMILY} are materialized the same way.
 *
 * <p>Threads: the owner's thread appends ({@link #append}, then {@link #appended} once the batch is written); the
 * materializer (or the owner's thread, in {@link #materializeAll}) applies. {@link #lock} keeps a materialization
 * from running into a drop or a close of the store; the owner's thread takes it only for those and when it waits.
 */
final class Changelog {
    static final String LEGACY_FAMILY = "changelog";
    /** Default-family keys: the newest record a committed checkpoint counts, and the newest materialized. */
    static final byte[] WRITTEN = "\0changelog.written".getBytes(StandardCharsets.UTF_8);
    static final byte[] MATERIALIZED = "\0changelog.materialized".getBytes(StandardCharsets.UTF_8);
    /** Records written and not materialized past which a commit waits for the materializer. */
    static final int MAX_RECORDS = Integer.getInteger("coilgun.changelogRecords", 64);
    /** Bytes of records written and not materialized past which a commit waits for the materializer. */
    static final long MAX_BYTES = Long.getLong("coilgun.changelogBytes", 64L << 20);
    /** How much of a record the materializer writes at once. */
    private static final int PART_BYTES = 64 << 10;

    private final RocksDB db;
    private final String where;
    private final ChangelogFile file;
    private final WriteOptions writeOptions = new WriteOptions();
    /** The rows of the commit under way. */
    private final BatchWriter rows = new BatchWriter();
    final ReentrantLock lock = new ReentrantLock();
    /** The newest record written (its batch committed). */
    private volatile long written;
    /** The newest record materialized (records are materialized in order). */
    private volatile long materialized;
    /** Bytes of the records written and not materialized; where the last {@link #MAX_RECORDS} records are. */
    private final AtomicLong bytesBehind = new AtomicLong();
    private final int[] sizes = new int[MAX_RECORDS + 1];
    private final long[] positions = new long[MAX_RECORDS + 1];
    private boolean closed;
    /** Time the owner's thread waited for the materializer (the changelog at its bound), and how often. */
    private volatile long waitedNanos;
    private volatile long waits;
    /** Time the owner's thread spent appending records to the file. */
    private long appendNanos;
    /** Whether the changelog is queued for the materializer (set by the owner, cleared by the materializer). */
    final AtomicBoolean queued = new AtomicBoolean();

    private Changelog(RocksDB db, String where, ChangelogFile file) {
        this.db = db;
        this.where = where;
        this.file = file;
    }

    /**
     * The changelog of a store just opened, every record it holds materialized first (in order), so that the
     * families hold every committed row; {@code legacy} is the family of an earlier release's records, or null.
     */
    static Changelog open(RocksDB db, ColumnFamilyHandle legacy, Path dir, String where) {
        try (WriteOptions options = new WriteOptions()) {
            if (legacy != null) {
                try (RocksIterator it = db.newIterator(legacy)) {
                    for (it.seekToFirst(); it.isValid(); it.next()) {
                        try (WriteBatch batch = new WriteBatch(it.value())) {
                            batch.delete(legacy, it.key());
                            db.write(options, batch);
                        }
                    }
                }
            }
            long materialized = longValue(db.get(MATERIALIZED));
            long written = longValue(db.get(WRITTEN));
            ChangelogFile file = ChangelogFile.open(dir, materialized, written, record -> {
                try (WriteBatch batch = new WriteBatch(record.payload())) {
                    batch.put(MATERIALIZED, bytes(record.seq()));
                    db.write(options, batch);
                } catch (RocksDBException e) {
                    throw new StateStoreException("cannot materialize changelog record " + record.seq() + " of "
                            + where, e);
                }
            });
            Changelog log = new Changelog(db, where, file);
            log.written = written;
            log.materialized = written;
            return log;
        } catch (RocksDBException | IOException e) {
            throw new StateStoreException("cannot open the changelog of " + where + ": " + e.getMessage(), e);
        }
    }

    /** Where the commit under way writes the owners' rows (a family's id as RocksDB numbers it). */
    BatchWriter rows() {
        return rows;
    }

    boolean hasRows() {
        return rows.count() > 0;
    }

    /**
     * Appends the rows of the commit under way to the file as the next record, and puts into {@code batch} that the
     * changelog counts it; returns its sequence. The record counts once {@code batch} is written, then
     * {@link #appended} is called. Waits first if the changelog is at its bound.
     */
    long append(BatchWriter batch) {
        awaitRoom();
        long seq = written + 1;
        int length = rows.seal();
        long start = System.nanoTime();
        try {
            positions[(int) (seq % positions.length)] = file.append(seq, rows.buffer(), length);
            appendNanos += System.nanoTime() - start;
        } catch (IOException e) {
            throw new StateStoreException("cannot append to the changelog of " + where + ": " + e.getMessage(), e);
        } finally {
            rows.clear();
        }
        sizes[(int) (seq % sizes.length)] = length;
        batch.put(0, WRITTEN, bytes(seq));
        return seq;
    }

    /** The rows of the commit under way are dropped (its batch failed to build). */
    void abandon() {
        rows.clear();
    }

    /** Record {@code seq}, appended, does not count: its batch failed to write. */
    void abandon(long seq) {
        try {
            file.cut(positions[(int) (seq % positions.length)]);
        } catch (IOException e) {
            throw new StateStoreException("cannot cut the changelog of " + where + ": " + e.getMessage(), e);
        }
    }

    /** Record {@code seq} is written: the materializer may apply it. */
    void appended(long seq) {
        bytesBehind.addAndGet(sizes[(int) (seq % sizes.length)]);
        written = seq;
        Materializer.PROCESS.wake(this);
    }

    long written() {
        return written;
    }

    long materialized() {
        return materialized;
    }

    long bytesBehind() {
        return bytesBehind.get();
    }

    long waitedNanos() {
        return waitedNanos;
    }

    long waits() {
        return waits;
    }

    long appendNanos() {
        return appendNanos;
    }

    private boolean full() {
        return written - materialized >= MAX_RECORDS || bytesBehind.get() >= MAX_BYTES;
    }

    /** Until the records not materialized are under the bounds (the materializer is behind: backpressure). */
    private void awaitRoom() {
        if (!full()) {
            return;
        }
        long start = System.nanoTime();
        while (full()) {
            Materializer.PROCESS.wake(this);
            lock.lock(); // the materializer holds it while it applies a record: wait for that, then look again
            try {
                if (full()) {
                    materializeNext(); // it is not on this store now: do it here rather than wait for it
                }
            } finally {
                lock.unlock();
            }
        }
        waitedNanos += System.nanoTime() - start;
        waits++;
    }

    /**
     * Applies the records written and not materialized yet, here and now (the store is about to drop rows, or to be
     * copied or compared row by row). On the owner's thread.
     */
    void materializeAll() {
        lock.lock();
        try {
            while (materialized < written && !closed) {
                materializeNext();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Applies the oldest record not materialized, if any; false when there was none. The lock is held. */
    boolean materializeNext() {
        if (closed || materialized >= written) {
            return false;
        }
        long seq = materialized + 1;
        int slot = (int) (seq % sizes.length);
        byte[] record;
        try {
            record = file.read(seq, positions[slot], sizes[slot]);
        } catch (IOException e) {
            throw new StateStoreException("cannot read changelog record " + seq + " of " + where, e);
        }
        // in parts of ~64 KiB: a write of a whole record (MiBs) held RocksDB's write queue for tens of milliseconds,
        // and the owner's checkpoints waited behind it. A record applied in part (a crash) is applied again whole
        // at the next open: its rows are puts and deletes of final values, and no one reads them before.
        List<byte[]> parts = BatchWriter.split(record, PART_BYTES);
        for (int i = 0; i < parts.size(); i++) {
            try (WriteBatch batch = new WriteBatch(parts.get(i))) {
                if (i == parts.size() - 1) {
                    batch.put(MATERIALIZED, bytes(seq));
                }
                db.write(writeOptions, batch);
            } catch (RocksDBException e) {
                throw new StateStoreException("cannot materialize changelog record " + seq + " of " + where, e);
            }
        }
        bytesBehind.addAndGet(-sizes[slot]);
        materialized = seq;
        file.deleteUpTo(seq);
        return true;
    }

    /** No record is materialized from now on (the store closes; what is left is materialized at its next open). */
    void close() {
        lock.lock();
        try {
            closed = true;
            file.close();
        } catch (IOException e) {
            throw new StateStoreException("cannot close the changelog of " + where, e);
        } finally {
            lock.unlock();
        }
        writeOptions.close();
    }

    boolean closed() {
        return closed;
    }

    private static byte[] bytes(long seq) {
        return ByteBuffer.allocate(8).putLong(seq).array();
    }

    private static long longValue(byte[] v) {
        return v == null ? 0 : ByteBuffer.wrap(v).getLong();
    }
}
