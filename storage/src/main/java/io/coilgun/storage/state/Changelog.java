package io.coilgun.storage.state;

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
 * A store's changelog: the rows its {@link StateStore.Owner owners} changed in each commit, as one record (one value
 * of the family {@value #FAMILY}, keyed by the record's sequence), written in the commit's atomic batch with
 * everything else. The processor thread so pays one sequential value per commit instead of one memtable insert per
 * row; the {@link Materializer}, on a thread of its own, later applies each record's rows to their families (the
 * per-group rows of today's layout) and deletes the record, both in one atomic write.
 *
 * <p>A record is a RocksDB write batch in its serialized form ({@link BatchWriter}): materializing it is a write of
 * it as it is. Until a record is materialized its rows are not in their families: their owner keeps them in memory
 * (and does not read them back) until told ({@link StateStore.Owner#materialized}). Opening a store materializes
 * every record left (a crash, or a close before the materializer came by), so a store is read as before once open.
 *
 * <p>Threads: the owner's thread appends ({@link #append}, then {@link #appended} once the batch is written); the
 * materializer (or the owner's thread, in {@link #materializeAll}) applies. {@link #lock} keeps a materialization
 * from running into a drop or a close of the store; the owner's thread takes it only for those and when it waits.
 */
final class Changelog {
    static final String FAMILY = "changelog";
    /** Records written and not materialized past which a commit waits for the materializer. */
    static final int MAX_RECORDS = Integer.getInteger("coilgun.changelogRecords", 64);
    /** Bytes of records written and not materialized past which a commit waits for the materializer. */
    static final long MAX_BYTES = Long.getLong("coilgun.changelogBytes", 64L << 20);

    private final RocksDB db;
    private final ColumnFamilyHandle handle;
    private final String where;
    private final WriteOptions writeOptions = new WriteOptions();
    /** The rows of the commit under way. */
    private final BatchWriter rows = new BatchWriter();
    final ReentrantLock lock = new ReentrantLock();
    /** The newest record written (its batch committed). */
    private volatile long written;
    /** The newest record materialized (records are materialized in order). */
    private volatile long materialized;
    /** Bytes of the records written and not materialized; sizes of the last {@link #MAX_RECORDS} records. */
    private final AtomicLong bytesBehind = new AtomicLong();
    private final long[] sizes = new long[MAX_RECORDS + 1];
    private boolean closed;
    /** Time the owner's thread waited for the materializer (the changelog at its bound), and how often. */
    private volatile long waitedNanos;
    private volatile long waits;
    /** Whether the changelog is queued for the materializer (set by the owner, cleared by the materializer). */
    final AtomicBoolean queued = new AtomicBoolean();

    private Changelog(RocksDB db, ColumnFamilyHandle handle, String where) {
        this.db = db;
        this.handle = handle;
        this.where = where;
    }

    /**
     * The changelog of a store just opened, every record it holds materialized first (in order), so that the
     * families hold every committed row.
     */
    static Changelog open(RocksDB db, ColumnFamilyHandle handle, String where) {
        Changelog log = new Changelog(db, handle, where);
        long last = 0;
        try (RocksIterator it = db.newIterator(handle)) {
            for (it.seekToFirst(); it.isValid(); it.next()) {
                long seq = seq(it.key());
                log.apply(seq, it.value());
                last = seq;
            }
        }
        log.written = last;
        log.materialized = last;
        return log;
    }

    /** Where the commit under way writes the owners' rows (a family's id as RocksDB numbers it). */
    BatchWriter rows() {
        return rows;
    }

    boolean hasRows() {
        return rows.count() > 0;
    }

    /**
     * Puts the rows of the commit under way into {@code batch} as the next record, and returns its sequence; the
     * record is written once {@code batch} is, then {@link #appended} is called. Waits first if the changelog is at
     * its bound.
     */
    long append(BatchWriter batch) {
        awaitRoom();
        long seq = written + 1;
        int bytes = batch.putBatch(handle.getID(), key(seq), rows);
        sizes[(int) (seq % sizes.length)] = bytes;
        return seq;
    }

    /** The rows of the commit under way are dropped (its batch failed). */
    void abandon() {
        rows.clear();
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

    /** Until the records not materialized are under the bounds (the materializer is behind: backpressure). */
    private void awaitRoom() {
        if (written - materialized < MAX_RECORDS && bytesBehind.get() < MAX_BYTES) {
            return;
        }
        long start = System.nanoTime();
        while (written - materialized >= MAX_RECORDS || bytesBehind.get() >= MAX_BYTES) {
            Materializer.PROCESS.wake(this);
            lock.lock(); // the materializer holds it while it applies a record: wait for that, then look again
            try {
                if (written - materialized >= MAX_RECORDS || bytesBehind.get() >= MAX_BYTES) {
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
     * compared row by row). On the owner's thread.
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
        byte[] key = key(seq);
        byte[] record;
        try {
            record = db.get(handle, key);
        } catch (RocksDBException e) {
            throw new StateStoreException("cannot read changelog record " + seq + " of " + where, e);
        }
        if (record == null) {
            throw new StateStoreException("changelog record " + seq + " of " + where + " is missing", null);
        }
        apply(seq, record);
        bytesBehind.addAndGet(-sizes[(int) (seq % sizes.length)]);
        materialized = seq;
        return true;
    }

    /** Writes the rows of record {@code seq} into their families and deletes the record, atomically. */
    private void apply(long seq, byte[] record) {
        try (WriteBatch batch = new WriteBatch(record)) {
            batch.delete(handle, key(seq));
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new StateStoreException("cannot materialize changelog record " + seq + " of " + where, e);
        }
    }

    /** No record is materialized from now on (the store closes; what is left is materialized at its next open). */
    void close() {
        lock.lock();
        try {
            closed = true;
        } finally {
            lock.unlock();
        }
        writeOptions.close();
    }

    boolean closed() {
        return closed;
    }

    static byte[] key(long seq) {
        byte[] k = new byte[8];
        for (int i = 7; i >= 0; i--) {
            k[i] = (byte) seq;
            seq >>>= 8;
        }
        return k;
    }

    private static long seq(byte[] key) {
        long s = 0;
        for (byte b : key) {
            s = s << 8 | (b & 0xFF);
        }
        return s;
    }
}
