package io.coilgun.storage.state;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatchWithIndex;
import org.rocksdb.WriteOptions;

/**
 * A task's state in RocksDB. Writes go to a batch that reads see immediately ({@link #get},
 * {@link #scan}); {@link #commit()} writes the batch atomically, so the state and the position it
 * belongs to (reservoir size, Kafka offset, kept under meta keys by the owner) always move together.
 * Single-threaded: only the task's processor thread uses it.
 */
public final class StateStore implements AutoCloseable {
    static {
        RocksDB.loadLibrary();
    }

    private final Path dir;
    private final Options options;
    private final RocksDB db;
    private final WriteOptions writeOptions = new WriteOptions();
    private final ReadOptions readOptions = new ReadOptions();
    private WriteBatchWithIndex batch = new WriteBatchWithIndex(true);

    private StateStore(Path dir, Options options, RocksDB db) {
        this.dir = dir;
        this.options = options;
        this.db = db;
    }

    public static StateStore open(Path dir) {
        Options options = new Options().setCreateIfMissing(true).setWriteBufferSize(8L << 20)
                .setMaxWriteBufferNumber(2).setMaxBackgroundJobs(1).setKeepLogFileNum(2);
        try {
            Files.createDirectories(dir);
            return new StateStore(dir, options, RocksDB.open(options, dir.toString()));
        } catch (RocksDBException | java.io.IOException e) {
            options.close();
            throw new StateStoreException("cannot open state store in " + dir + ": " + e.getMessage(), e);
        }
    }

    public byte[] get(byte[] key) {
        try {
            return batch.getFromBatchAndDB(db, readOptions, key);
        } catch (RocksDBException e) {
            throw new StateStoreException("read failed in " + dir, e);
        }
    }

    public void put(byte[] key, byte[] value) {
        try {
            batch.put(key, value);
        } catch (RocksDBException e) {
            throw new StateStoreException("write failed in " + dir, e);
        }
    }

    public void delete(byte[] key) {
        try {
            batch.delete(key);
        } catch (RocksDBException e) {
            throw new StateStoreException("delete failed in " + dir, e);
        }
    }

    /** Entries with {@code from <= key < to}, in key order, uncommitted writes included. */
    public void scan(byte[] from, byte[] to, EntryVisitor visitor) {
        try (RocksIterator base = db.newIterator(readOptions);
             RocksIterator it = batch.newIteratorWithBase(base)) {
            for (it.seek(from); it.isValid(); it.next()) {
                byte[] key = it.key();
                if (Arrays.compareUnsigned(key, to) >= 0) {
                    break;
                }
                if (!visitor.visit(key, it.value())) {
                    break;
                }
            }
        }
    }

    /** Writes everything since the last commit atomically (WAL on, no fsync: survives a process crash). */
    public void commit() {
        if (batch.count() == 0) {
            return;
        }
        try {
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new StateStoreException("commit failed in " + dir, e);
        }
        batch.close();
        batch = new WriteBatchWithIndex(true);
    }

    @Override
    public void close() {
        batch.close();
        db.close();
        options.close();
        writeOptions.close();
        readOptions.close();
    }

    /** Called per entry of a scan; returns false to stop. */
    @FunctionalInterface
    public interface EntryVisitor {
        boolean visit(byte[] key, byte[] value);
    }
}
