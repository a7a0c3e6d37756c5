package io.coilgun.storage.state;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * A task's state in RocksDB, with a write-back cache in front of it.
 *
 * <p>Writes since the last {@link #commit()} stay in memory (a sorted map; deletes as tombstones) and reads see
 * them at once ({@link #get}, {@link #scan}); {@link #commit()} writes them in one atomic RocksDB batch, so the state
 * and the position it belongs to (reservoir checkpoint, Kafka offset, kept under meta keys by the owner) always move
 * together. Committed values are kept in a bounded LRU cache (absent keys too), so that hot keys are read from
 * memory: RocksDB is read only on a miss. Single-threaded: only the task's processor thread uses it.
 */
public final class StateStore implements AutoCloseable {
    static {
        RocksDB.loadLibrary();
    }

    /** Committed entries kept in memory per store by default. */
    public static final int DEFAULT_CACHED_ENTRIES = Integer.getInteger("coilgun.stateCacheEntries", 200_000);
    private static final byte[] ABSENT = new byte[0];
    /** One RocksDB block cache for every store of the process (per task stores would each pin their own). */
    private static final LRUCache BLOCK_CACHE = new LRUCache(64L << 20);

    private final Path dir;
    private final Options options;
    private final RocksDB db;
    private final WriteOptions writeOptions = new WriteOptions();
    private final ReadOptions readOptions = new ReadOptions();
    /** Uncommitted writes; a null value is a delete. */
    private final TreeMap<byte[], byte[]> dirty = new TreeMap<>(Arrays::compareUnsigned);
    private final LinkedHashMap<Key, byte[]> cache;

    /** A byte[] as a hash key. */
    private record Key(byte[] bytes, int hash) {
        static Key of(byte[] b) {
            return new Key(b, Arrays.hashCode(b));
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && Arrays.equals(k.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private StateStore(Path dir, Options options, RocksDB db, int cachedEntries) {
        this.dir = dir;
        this.options = options;
        this.db = db;
        this.cache = new LinkedHashMap<>(1024, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, byte[]> eldest) {
                return size() > cachedEntries;
            }
        };
    }

    public static StateStore open(Path dir) {
        return open(dir, DEFAULT_CACHED_ENTRIES);
    }

    public static StateStore open(Path dir, int cachedEntries) {
        // Bloom filters: most misses of the cache are keys that do not exist yet (a card's
        // first event), and a filter answers those without reading index and data blocks.
        BlockBasedTableConfig table = new BlockBasedTableConfig()
                .setFilterPolicy(new BloomFilter(10, false))
                .setBlockCache(BLOCK_CACHE);
        Options options = new Options().setCreateIfMissing(true).setWriteBufferSize(8L << 20)
                .setMaxWriteBufferNumber(2).setMaxBackgroundJobs(1).setKeepLogFileNum(2)
                .setTableFormatConfig(table).setMemtablePrefixBloomSizeRatio(0.1).setMemtableWholeKeyFiltering(true);
        try {
            Files.createDirectories(dir);
            return new StateStore(dir, options, RocksDB.open(options, dir.toString()), cachedEntries);
        } catch (RocksDBException | java.io.IOException e) {
            options.close();
            throw new StateStoreException("cannot open state store in " + dir + ": " + e.getMessage(), e);
        }
    }

    public byte[] get(byte[] key) {
        if (dirty.containsKey(key)) {
            return dirty.get(key);
        }
        Key k = Key.of(key);
        byte[] cached = cache.get(k);
        if (cached != null) {
            return cached == ABSENT ? null : cached;
        }
        try {
            byte[] value = db.get(readOptions, key);
            cache.put(k, value == null ? ABSENT : value);
            return value;
        } catch (RocksDBException e) {
            throw new StateStoreException("read failed in " + dir, e);
        }
    }

    public void put(byte[] key, byte[] value) {
        dirty.put(key, value);
    }

    public void delete(byte[] key) {
        dirty.put(key, null);
    }

    /** Entries with {@code from <= key < to}, in key order, uncommitted writes included. */
    public void scan(byte[] from, byte[] to, EntryVisitor visitor) {
        NavigableMap<byte[], byte[]> pending = dirty.subMap(from, true, to, false);
        Iterator<Map.Entry<byte[], byte[]>> mine = pending.entrySet().iterator();
        Map.Entry<byte[], byte[]> next = mine.hasNext() ? mine.next() : null;
        try (RocksIterator it = db.newIterator(readOptions)) {
            it.seek(from);
            while (true) {
                byte[] dbKey = it.isValid() ? it.key() : null;
                if (dbKey != null && Arrays.compareUnsigned(dbKey, to) >= 0) {
                    dbKey = null;
                }
                if (dbKey == null && next == null) {
                    return;
                }
                int c = dbKey == null ? 1 : next == null ? -1 : Arrays.compareUnsigned(dbKey, next.getKey());
                byte[] key;
                byte[] value;
                if (c < 0) {
                    key = dbKey;
                    value = it.value();
                    it.next();
                } else {
                    key = next.getKey();
                    value = next.getValue();
                    next = mine.hasNext() ? mine.next() : null;
                    if (c == 0) {
                        it.next(); // overridden by the uncommitted write
                    }
                }
                if (value != null && !visitor.visit(key, value)) {
                    return;
                }
            }
        }
    }

    /** Writes everything since the last commit atomically (WAL on, no fsync: survives a process crash). */
    public void commit() {
        if (dirty.isEmpty()) {
            return;
        }
        try (WriteBatch batch = new WriteBatch()) {
            for (Map.Entry<byte[], byte[]> e : dirty.entrySet()) {
                if (e.getValue() == null) {
                    batch.delete(e.getKey());
                } else {
                    batch.put(e.getKey(), e.getValue());
                }
            }
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new StateStoreException("commit failed in " + dir, e);
        }
        for (Map.Entry<byte[], byte[]> e : dirty.entrySet()) {
            cache.put(Key.of(e.getKey()), e.getValue() == null ? ABSENT : e.getValue());
        }
        dirty.clear();
    }

    @Override
    public void close() {
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
