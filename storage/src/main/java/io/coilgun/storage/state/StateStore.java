package io.coilgun.storage.state;

import io.coilgun.storage.snapshot.SnapshotFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteBufferManager;
import org.rocksdb.WriteOptions;

/**
 * A task's state in RocksDB: one column family per kind of data (the task's own metadata in the default family,
 * each metric's group states and its auxiliary rows in families of their own, see {@link #family}), with a
 * write-back cache in front of it.
 *
 * <p>Writes since the last {@link #commit()} stay in memory (deletes as tombstones) and reads see them at once
 * ({@link Family#get}, {@link Family#scan}); {@link #commit()} writes them, every family's, in one atomic RocksDB
 * batch, so the state and the position it belongs to (reservoir checkpoint, Kafka offset, kept under meta keys by
 * the owner) always move together. Committed values are kept in a bounded LRU cache shared by the families (absent
 * keys too), so that hot keys are read from memory: RocksDB is read only on a miss. Dropping a family
 * ({@link #dropFamily}) removes all its rows at once. Single-threaded: only the task's processor thread uses it.
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
    /**
     * One memtable budget for every family of every store: a family per metric would otherwise each fill its own
     * write buffer before flushing.
     */
    private static final WriteBufferManager WRITE_BUFFERS = new WriteBufferManager(128L << 20, BLOCK_CACHE);
    private static final String DEFAULT = new String(RocksDB.DEFAULT_COLUMN_FAMILY, StandardCharsets.UTF_8);

    private final Path dir;
    private final DBOptions options;
    private final ColumnFamilyOptions familyOptions;
    private final RocksDB db;
    private final WriteOptions writeOptions = new WriteOptions();
    private final ReadOptions readOptions = new ReadOptions();
    /** Builds each commit's batch. */
    private final BatchWriter batch = new BatchWriter();
    private final Map<String, Family> families = new LinkedHashMap<>();
    private final Family defaultFamily;
    /**
     * Rows in memory, by family and key: committed values (absent keys too, as {@link #ABSENT}) and, for point
     * families, their uncommitted writes (dirty slots, never evicted before their commit).
     */
    private final LinkedHashMap<Key, Slot> cache;
    private int nextFamilyId;
    private final int cachedEntries;
    /** Where the owners' rows go at each commit, materialized into their families by another thread. */
    private final Changelog changelog;
    /** The newest changelog record the owners were told is materialized. */
    private long notifiedMaterialized;
    /** Time spent in RocksDB's write of the commits' batches, on the owner's thread. */
    private long writeNanos;

    /** A row in the cache; {@code dirty} while it holds a write of a point family not yet committed. */
    private static final class Slot {
        final Key key;
        byte[] value;
        boolean dirty;

        Slot(Key key, byte[] value, boolean dirty) {
            this.key = key;
            this.value = value;
            this.dirty = dirty;
        }
    }

    /** A family's byte[] key as a hash key of the shared cache. */
    private record Key(int family, byte[] bytes, int hash) {
        static Key of(int family, byte[] b) {
            return new Key(family, b, 31 * Arrays.hashCode(b) + family);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && k.hash == hash && k.family == family && Arrays.equals(k.bytes, bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    private StateStore(Path dir, DBOptions options, ColumnFamilyOptions familyOptions, RocksDB db,
            List<ColumnFamilyDescriptor> descriptors, List<ColumnFamilyHandle> handles, int cachedEntries) {
        this.dir = dir;
        this.options = options;
        this.familyOptions = familyOptions;
        this.db = db;
        this.cachedEntries = cachedEntries;
        // sized for its bound up front: growing a map of 200,000 rows by doubling showed in the engine's profile
        this.cache = new LinkedHashMap<>((int) Math.min(cachedEntries / 0.75 + 1, 1 << 20), 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Slot> eldest) {
                return size() > cachedEntries && !eldest.getValue().dirty; // a write waits for its commit
            }
        };
        ColumnFamilyHandle legacy = null;
        for (int i = 0; i < handles.size(); i++) {
            String name = new String(descriptors.get(i).getName(), StandardCharsets.UTF_8);
            if (name.equals(Changelog.LEGACY_FAMILY)) {
                legacy = handles.get(i);
            } else {
                families.put(name, new Family(name, handles.get(i), nextFamilyId++));
            }
        }
        this.defaultFamily = families.get(DEFAULT);
        this.changelog = Changelog.open(db, legacy, dir.resolve("changelog"), dir.toString());
        if (legacy != null) {
            try {
                db.dropColumnFamily(legacy); // its records are rows now
            } catch (RocksDBException e) {
                throw new StateStoreException("cannot drop the old changelog of " + dir + ": " + e.getMessage(), e);
            } finally {
                legacy.close();
            }
        }
        this.notifiedMaterialized = changelog.materialized();
    }

    /**
     * Bytes held in the block cache every store of the process shares; memtables are charged to it too (the write
     * buffer manager), so this is most of RocksDB's memory.
     */
    public static long sharedCacheBytes() {
        return BLOCK_CACHE.getUsage();
    }

    /** This store's memtables, in bytes (part of {@link #sharedCacheBytes()}). On the owner's thread. */
    public long memtableBytes() {
        return longProperty("rocksdb.cur-size-all-mem-tables");
    }

    /** This store's open SST files' index and filter blocks held outside the block cache, in bytes. */
    public long tableReaderBytes() {
        return longProperty("rocksdb.estimate-table-readers-mem");
    }

    private long longProperty(String name) {
        try {
            return db.getAggregatedLongProperty(name);
        } catch (RocksDBException e) {
            return 0;
        }
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
        ColumnFamilyOptions familyOptions = new ColumnFamilyOptions().setWriteBufferSize(8L << 20)
                .setMaxWriteBufferNumber(2).setTableFormatConfig(table).setMemtablePrefixBloomSizeRatio(0.1)
                .setMemtableWholeKeyFiltering(true);
        DBOptions options = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true)
                .setMaxBackgroundJobs(1).setKeepLogFileNum(2).setWriteBufferManager(WRITE_BUFFERS);
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try {
            Files.createDirectories(dir);
            List<byte[]> names;
            try (Options listing = new Options()) {
                names = Files.exists(dir.resolve("CURRENT"))
                        ? RocksDB.listColumnFamilies(listing, dir.toString()) : List.of(RocksDB.DEFAULT_COLUMN_FAMILY);
            }
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            for (byte[] name : names) {
                descriptors.add(new ColumnFamilyDescriptor(name, familyOptions));
            }
            RocksDB db = RocksDB.open(options, dir.toString(), descriptors, handles);
            try {
                return new StateStore(dir, options, familyOptions, db, descriptors, handles, cachedEntries);
            } catch (RuntimeException e) {
                handles.forEach(ColumnFamilyHandle::close);
                db.close();
                throw e;
            }
        } catch (RocksDBException | IOException e) {
            options.close();
            familyOptions.close();
            throw new StateStoreException("cannot open state store in " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Starts writing the memtables of every family to table files in RocksDB's background threads and returns at
     * once, so that a checkpoint taken a little later ({@link #checkpointTo}), which flushes on its caller's thread,
     * finds little left to flush.
     */
    public void flushInBackground() {
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        for (Family f : families.values()) {
            handles.add(f.handle);
        }
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(false)) {
            db.flush(flush, handles);
        } catch (RocksDBException e) {
            throw new StateStoreException("cannot flush state store " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Whether RocksDB is still flushing memtables, or has some waiting to be flushed (false when unknown). */
    public boolean flushing() {
        try {
            if (db.getLongProperty("rocksdb.num-running-flushes") > 0) {
                return true;
            }
            for (Family f : families.values()) {
                if (db.getLongProperty(f.handle, "rocksdb.mem-table-flush-pending") > 0) {
                    return true;
                }
            }
            return false;
        } catch (RocksDBException e) {
            return false;
        }
    }

    /**
     * A consistent copy of the store as of now in the new directory {@code into} (RocksDB's checkpoint: the memtables
     * flushed, the table files hard-linked, the others copied), with the files and their lengths, paths prefixed
     * with {@code prefix}. Commit first: what is not committed is not in it.
     */
    public List<SnapshotFile> checkpointTo(Path into, String prefix) {
        materialize(); // the copy is RocksDB's alone: no changelog record left for it to read
        try (Checkpoint checkpoint = Checkpoint.create(db)) {
            Files.createDirectories(into.getParent());
            checkpoint.createCheckpoint(into.toString());
        } catch (RocksDBException | IOException e) {
            throw new StateStoreException("cannot checkpoint state store " + dir + " into " + into + ": "
                    + e.getMessage(), e);
        }
        List<SnapshotFile> files = new ArrayList<>();
        try (var listing = Files.list(into)) {
            for (Path f : listing.sorted().toList()) {
                files.add(new SnapshotFile(prefix + f.getFileName(), Files.size(f)));
            }
        } catch (IOException e) {
            throw new StateStoreException("cannot list checkpoint " + into + ": " + e.getMessage(), e);
        }
        return files;
    }

    /**
     * The committed value of {@code key} (default column family) in the store in {@code dir}, read without opening
     * it for writing; null when the key or the store is absent. For a store no one has open here.
     */
    public static byte[] readCommitted(Path dir, byte[] key) {
        if (!Files.exists(dir.resolve("CURRENT"))) {
            return null;
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try (Options listing = new Options(); DBOptions options = new DBOptions();
                ColumnFamilyOptions familyOptions = new ColumnFamilyOptions()) {
            List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
            for (byte[] name : RocksDB.listColumnFamilies(listing, dir.toString())) {
                descriptors.add(new ColumnFamilyDescriptor(name, familyOptions));
            }
            try (RocksDB db = RocksDB.openReadOnly(options, dir.toString(), descriptors, handles)) {
                try {
                    return db.get(key);
                } finally {
                    for (ColumnFamilyHandle h : handles) {
                        h.close();
                    }
                }
            }
        } catch (RocksDBException e) {
            throw new StateStoreException("cannot read state store " + dir + ": " + e.getMessage(), e);
        }
    }

    /** The column family {@code name}, created (empty) if it does not exist. */
    public Family family(String name) {
        return family(name, true);
    }

    /**
     * The column family {@code name}, created (empty) if it does not exist; with {@code cached} false, its committed
     * rows are never kept in the store's heap cache (reads go to RocksDB: its memtables, bloom filters and block
     * cache): for families read once per key, such as the ids of the dedup horizon, that would only evict hotter rows.
     */
    public Family family(String name, boolean cached) {
        Family existing = families.get(name);
        if (existing != null) {
            if (!cached && existing.cached) {
                if (!existing.ordered) {
                    throw new IllegalStateException("point family " + name + " is always cached");
                }
                existing.cached = false;
                cache.keySet().removeIf(k -> k.family == existing.id);
            }
            return existing;
        }
        Family created = createFamily(name);
        created.cached = cached;
        return created;
    }

    /**
     * The column family {@code name} for point reads and writes (a metric's group rows): its uncommitted writes live
     * in the store's cache as dirty rows, so a read is one hash lookup and a commit writes them without moving them;
     * a scan of it (rare: a task opening, a SELECT) sorts the uncommitted rows in its range first.
     */
    public Family pointFamily(String name) {
        Family f = family(name, true);
        if (f.ordered) {
            Map<byte[], byte[]> pending = new TreeMap<>(f.dirty);
            f.dirty.clear();
            f.ordered = false;
            pending.forEach((k, v) -> {
                if (v == null) {
                    f.delete(k);
                } else {
                    f.put(k, v);
                }
            });
        }
        return f;
    }

    private Family createFamily(String name) {
        Family f = families.get(name);
        if (f != null) {
            return f;
        }
        try {
            ColumnFamilyHandle handle = db.createColumnFamily(new ColumnFamilyDescriptor(
                    name.getBytes(StandardCharsets.UTF_8), familyOptions));
            f = new Family(name, handle, nextFamilyId++);
            families.put(name, f);
            return f;
        } catch (RocksDBException e) {
            throw new StateStoreException("cannot create column family " + name + " in " + dir, e);
        }
    }

    /** The names of the families that exist, the default one included. */
    public List<String> familyNames() {
        return List.copyOf(families.keySet());
    }

    /**
     * Removes family {@code name} and every row in it, committed or not, at once (nothing if it does not exist).
     * Not part of a checkpoint: the caller must not need the rows again whatever state it recovers to.
     */
    public void dropFamily(String name) {
        Family f = families.remove(name);
        if (f == null) {
            return;
        }
        if (f == defaultFamily) {
            families.put(name, f);
            throw new IllegalArgumentException("the default column family cannot be dropped");
        }
        f.dirty.clear();
        f.pending.clear();
        cache.keySet().removeIf(k -> k.family == f.id);
        materialize(); // no record may hold rows of the family when it is gone
        try {
            db.dropColumnFamily(f.handle);
        } catch (RocksDBException e) {
            throw new StateStoreException("cannot drop column family " + name + " in " + dir, e);
        } finally {
            f.handle.close();
            f.dropped = true;
        }
    }

    /** A read of the default family ({@link Family#get}). */
    public byte[] get(byte[] key) {
        return defaultFamily.get(key);
    }

    public void put(byte[] key, byte[] value) {
        defaultFamily.put(key, value);
    }

    public void delete(byte[] key) {
        defaultFamily.delete(key);
    }

    public void scan(byte[] from, byte[] to, EntryVisitor visitor) {
        defaultFamily.scan(from, to, visitor);
    }

    /**
     * Writes everything since the last commit atomically (WAL on, no fsync: survives a process crash): the owners'
     * changed rows as one {@link Changelog} record, every other write as a row of its family. Tells the owners first
     * which records were materialized since the last commit.
     */
    public void commit() {
        notifyMaterialized();
        boolean any = false;
        for (Family f : families.values()) {
            any |= !f.dirty.isEmpty() || !f.pending.isEmpty();
            for (Owner o : f.owners) {
                any |= o.hasChanges();
            }
        }
        if (!any) {
            return;
        }
        byte[] data;
        long record = 0;
        try {
            serializeOwners();
            if (changelog.hasRows()) {
                record = changelog.append(batch);
            }
            data = serializeBatch();
        } catch (RuntimeException e) {
            batch.clear(); // nothing of a batch abandoned half-built goes into the next commit
            changelog.abandon();
            throw e;
        }
        long start = System.nanoTime();
        try (WriteBatch written = new WriteBatch(data)) {
            db.write(writeOptions, written);
        } catch (RocksDBException e) {
            if (record > 0) {
                changelog.abandon(record);
            }
            throw new StateStoreException("commit failed in " + dir, e);
        } finally {
            writeNanos += System.nanoTime() - start;
        }
        if (record > 0) {
            changelog.appended(record);
        }
        for (Family f : families.values()) {
            if (f.cached) {
                for (Map.Entry<byte[], byte[]> e : f.dirty.entrySet()) {
                    Key k = Key.of(f.id, e.getKey());
                    cache.put(k, new Slot(k, e.getValue() == null ? ABSENT : e.getValue(), false));
                }
            }
            f.dirty.clear();
            for (Slot slot : f.pending) {
                slot.dirty = false; // now a committed row of the cache, where it already is
            }
            f.pending.clear();
            for (Owner o : f.owners) {
                o.committed(record);
            }
        }
        // writes kept the cache over its bound (a dirty row is never evicted): back to it, oldest first
        if (cache.size() > cachedEntries) {
            Iterator<Slot> oldest = cache.values().iterator();
            while (cache.size() > cachedEntries && oldest.hasNext()) {
                oldest.next();
                oldest.remove();
            }
        }
    }

    /** The owners' changed rows, into the changelog's record of this commit. */
    private void serializeOwners() {
        BatchWriter rows = changelog.rows();
        for (Family f : families.values()) {
            if (f.owners.isEmpty()) {
                continue;
            }
            int familyId = f.handle.getID();
            RowWriter writer = new RowWriter() {
                @Override
                public void put(byte[] key, byte[] value) {
                    rows.put(familyId, key, value);
                }

                @Override
                public void put(byte[] prefix, byte[] key, int keyOff, int keyLen, byte[] value, int valueOff,
                        int valueLen) {
                    rows.put(familyId, prefix, key, keyOff, keyLen, value, valueOff, valueLen);
                }

                @Override
                public void delete(byte[] key) {
                    rows.delete(familyId, key);
                }
            };
            for (Owner o : f.owners) {
                o.writeChanges(writer);
            }
        }
    }

    /** Tells the owners of the changelog records materialized since they were last told. */
    private void notifyMaterialized() {
        long done = changelog.materialized();
        if (done > notifiedMaterialized) {
            notifiedMaterialized = done;
            for (Family f : families.values()) {
                for (Owner o : List.copyOf(f.owners)) {
                    o.materialized(done);
                }
            }
        }
    }

    /**
     * Applies every changelog record written so far to the families, here and now, and tells the owners: then every
     * committed row is in its family (a drop of rows, or a comparison of stores row by row, needs that).
     */
    public void materialize() {
        changelog.materializeAll();
        notifyMaterialized();
    }

    /** Changelog records written and not materialized yet. */
    public long changelogRecordsBehind() {
        return changelog.written() - changelog.materialized();
    }

    /** Bytes of the changelog records written and not materialized yet. */
    public long changelogBytesBehind() {
        return changelog.bytesBehind();
    }

    /** Time commits waited for the materializer (the changelog at its bound), in nanoseconds. */
    public long changelogWaitNanos() {
        return changelog.waitedNanos();
    }

    /** Time the commits spent appending their changelog records to its file, on the owner's thread, in ns. */
    public long changelogAppendNanos() {
        return changelog.appendNanos();
    }

    /** Time the commits spent in RocksDB's write, on the owner's thread, in nanoseconds. */
    public long writeNanos() {
        return writeNanos;
    }

    /** Every family's own writes since the last commit (the owners' rows are in the changelog), as one batch. */
    private byte[] serializeBatch() {
        for (Family f : families.values()) {
            int familyId = f.handle.getID();
            for (Map.Entry<byte[], byte[]> e : f.dirty.entrySet()) {
                if (e.getValue() == null) {
                    batch.delete(familyId, e.getKey());
                } else {
                    batch.put(familyId, e.getKey(), e.getValue());
                }
            }
            for (Slot slot : f.pending) {
                if (slot.value == ABSENT) {
                    batch.delete(familyId, slot.key.bytes());
                } else {
                    batch.put(familyId, slot.key.bytes(), slot.value);
                }
            }
        }
        return batch.take();
    }

    @Override
    public void close() {
        changelog.close();
        for (Family f : families.values()) {
            f.handle.close();
        }
        db.close();
        options.close();
        familyOptions.close();
        writeOptions.close();
        readOptions.close();
    }

    /**
     * One column family: point reads and writes through the store's write-back cache, and ordered scans that merge
     * the uncommitted writes with RocksDB's rows.
     */
    public final class Family {
        private final String name;
        private final ColumnFamilyHandle handle;
        private final int id;
        /** Uncommitted writes of an ordered family; a null value is a delete. */
        private final TreeMap<byte[], byte[]> dirty = new TreeMap<>(Arrays::compareUnsigned);
        /** Uncommitted writes of a point family: its dirty rows of the cache, in write order. */
        private final List<Slot> pending = new ArrayList<>();
        /** Ordered (the default): uncommitted writes in a sorted map. Point: in the cache ({@link #pointFamily}). */
        private boolean ordered = true;
        private boolean dropped;
        /** Whether committed rows are kept in the store's heap cache. */
        private boolean cached = true;
        /** The in-memory tables that own rows of this family and write their changes at each commit. */
        private final List<Owner> owners = new ArrayList<>(1);

        private Family(String name, ColumnFamilyHandle handle, int id) {
            this.name = name;
            this.handle = handle;
            this.id = id;
        }

        public String name() {
            return name;
        }

        /**
         * Gives rows of the family (a key range of the owner's) to an in-memory table of the caller (a metric's group
         * table), which keeps them and writes the rows it changed into each commit's changelog record ({@link Owner}):
         * the family must not be cached (see {@link StateStore#family(String, boolean)}). Every changelog record is
         * materialized first, so that the new owner reads every committed row: add the owner before reading. Reads
         * and scans of the family see the owners' materialized rows and the family's own uncommitted writes
         * ({@link #put}), not the owners' changes in records not materialized yet.
         */
        public void addOwner(Owner owner) {
            checkLive();
            if (cached || !ordered) {
                throw new IllegalStateException("family " + name + " is cached: an owner keeps its rows itself");
            }
            materialize(); // the new owner reads the rows of the family's owners before it (closed or not)
            owners.add(owner);
        }

        /** The owner's changes are no longer written (it is closed; its rows may be dropped). */
        public void removeOwner(Owner owner) {
            owners.remove(owner);
        }

        /**
         * Removes every row with {@code from <= key < to}, committed or not, at once: a RocksDB range delete, not part
         * of a checkpoint (as {@link StateStore#dropFamily}): the caller must not need the rows again whatever state
         * it recovers to, and owners of rows in the range must be gone first.
         */
        public void dropRange(byte[] from, byte[] to) {
            checkLive();
            materialize(); // rows of the range in a record not materialized yet would come back after the delete
            dirty.subMap(from, true, to, false).clear();
            pending.removeIf(slot -> inRange(slot.key.bytes(), from, to));
            cache.keySet().removeIf(k -> k.family == id && inRange(k.bytes(), from, to));
            try {
                db.deleteRange(handle, writeOptions, from, to);
            } catch (RocksDBException e) {
                throw new StateStoreException("cannot delete rows of " + name + " in " + dir, e);
            }
        }

        public byte[] get(byte[] key) {
            checkLive();
            if (!ordered) {
                Key k = Key.of(id, key);
                Slot slot = cache.get(k);
                if (slot == null) {
                    slot = new Slot(k, read(key), false);
                    cache.put(k, slot);
                }
                return slot.value == ABSENT ? null : slot.value;
            }
            if (!dirty.isEmpty()) {
                byte[] pendingValue = dirty.get(key);
                if (pendingValue != null || dirty.containsKey(key)) {
                    return pendingValue;
                }
            }
            if (!cached) {
                try {
                    return db.get(handle, readOptions, key);
                } catch (RocksDBException e) {
                    throw new StateStoreException("read failed in " + dir + " (" + name + ")", e);
                }
            }
            Key k = Key.of(id, key);
            Slot cachedSlot = cache.get(k);
            if (cachedSlot != null) {
                return cachedSlot.value == ABSENT ? null : cachedSlot.value;
            }
            byte[] value = read(key);
            cache.put(k, new Slot(k, value, false));
            return value == ABSENT ? null : value;
        }

        /** The committed value in RocksDB, or {@link #ABSENT}. */
        private byte[] read(byte[] key) {
            try {
                byte[] value = db.get(handle, readOptions, key);
                return value == null ? ABSENT : value;
            } catch (RocksDBException e) {
                throw new StateStoreException("read failed in " + dir + " (" + name + ")", e);
            }
        }

        public void put(byte[] key, byte[] value) {
            checkLive();
            if (ordered) {
                dirty.put(key, value);
            } else {
                write(key, value);
            }
        }

        public void delete(byte[] key) {
            checkLive();
            if (ordered) {
                dirty.put(key, null);
            } else {
                write(key, ABSENT);
            }
        }

        /** A point family's write: its row of the cache becomes dirty until the next commit. */
        private void write(byte[] key, byte[] value) {
            Key k = Key.of(id, key);
            Slot slot = cache.get(k);
            if (slot == null) {
                slot = new Slot(k, value, true);
                cache.put(k, slot);
                pending.add(slot);
            } else {
                slot.value = value;
                if (!slot.dirty) {
                    slot.dirty = true;
                    pending.add(slot);
                }
            }
        }

        /** A point family's uncommitted writes with {@code from <= key < to}, sorted (null value: a delete). */
        private NavigableMap<byte[], byte[]> pendingIn(byte[] from, byte[] to) {
            TreeMap<byte[], byte[]> sorted = new TreeMap<>(Arrays::compareUnsigned);
            for (Slot slot : pending) {
                byte[] k = slot.key.bytes();
                if (Arrays.compareUnsigned(k, from) >= 0 && (to == null || Arrays.compareUnsigned(k, to) < 0)) {
                    sorted.put(k, slot.value == ABSENT ? null : slot.value);
                }
            }
            return sorted;
        }

        /**
         * Entries with {@code from <= key < to} ({@code to} null: no upper bound), in key order, uncommitted writes
         * included.
         */
        public void scan(byte[] from, byte[] to, EntryVisitor visitor) {
            checkLive();
            if (to != null && Arrays.compareUnsigned(from, to) >= 0) {
                return;
            }
            NavigableMap<byte[], byte[]> uncommitted = !ordered ? pendingIn(from, to)
                    : to == null ? dirty.tailMap(from, true) : dirty.subMap(from, true, to, false);
            Iterator<Map.Entry<byte[], byte[]>> mine = uncommitted.entrySet().iterator();
            Map.Entry<byte[], byte[]> next = mine.hasNext() ? mine.next() : null;
            try (RocksIterator it = db.newIterator(handle, readOptions)) {
                it.seek(from);
                while (true) {
                    byte[] dbKey = it.isValid() ? it.key() : null;
                    if (dbKey != null && to != null && Arrays.compareUnsigned(dbKey, to) >= 0) {
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

        /** Every entry of the family, in key order. */
        public void scanAll(EntryVisitor visitor) {
            scan(new byte[0], null, visitor);
        }

        /** Deletes every entry with {@code from <= key < to}. */
        public void deleteRange(byte[] from, byte[] to) {
            List<byte[]> keys = new ArrayList<>();
            scan(from, to, (key, value) -> keys.add(key));
            keys.forEach(this::delete);
        }

        private static boolean inRange(byte[] key, byte[] from, byte[] to) {
            return Arrays.compareUnsigned(key, from) >= 0 && Arrays.compareUnsigned(key, to) < 0;
        }

        private void checkLive() {
            if (dropped) {
                throw new IllegalStateException("column family " + name + " was dropped");
            }
        }
    }

    /**
     * The in-memory owner of a family's rows ({@link Family#owner}): each {@link #commit()} asks it for the rows it
     * changed since the last one, writes them in the same atomic batch as every other write, then tells it they are
     * committed.
     */
    public interface Owner {
        boolean hasChanges();

        /** Writes every row changed since the last commit (the batch copies the bytes at once). */
        void writeChanges(RowWriter out);

        /**
         * The batch with the changes is written: the rows are in changelog record {@code record} (0: the owners
         * wrote none), durable, and in their family once {@link #materialized} passes it. Until then a read of the
         * family does not see them: the owner keeps what it needs in memory.
         */
        void committed(long record);

        /** Every changelog record up to {@code record} is materialized: its rows are in their families. */
        default void materialized(long record) {
        }
    }

    /** Receives the rows an {@link Owner} changed; the batch copies the bytes at once. */
    public interface RowWriter {
        void put(byte[] key, byte[] value);

        /**
         * A row whose key is {@code prefix} then {@code key[keyOff .. keyOff + keyLen)} and whose value is
         * {@code value[valueOff .. valueOff + valueLen)}, written without making arrays of them.
         */
        void put(byte[] prefix, byte[] key, int keyOff, int keyLen, byte[] value, int valueOff, int valueLen);

        void delete(byte[] key);
    }

    /** Called per entry of a scan; returns false to stop. */
    @FunctionalInterface
    public interface EntryVisitor {
        boolean visit(byte[] key, byte[] value);
    }
}
