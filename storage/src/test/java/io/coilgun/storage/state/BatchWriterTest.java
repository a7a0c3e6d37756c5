package io.coilgun.storage.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

/**
 * The batches {@link BatchWriter} hands over in its own buffer, padded with a log-data record: RocksDB counts and
 * applies only the records, for every amount of padding (none, one byte, the varint lengths' edges), and a reopened
 * database replays them from its WAL.
 */
class BatchWriterTest {
    @TempDir
    Path dir;

    @Test
    void paddedBatchesApplyTheirRecordsOnly() throws Exception {
        RocksDB.loadLibrary();
        int[] rooms = {0, 1, 2, 3, 4, 5, 6, 7, 10, 127, 128, 129, 130, 131, 16_383, 16_384, 16_385, 16_386, 16_387,
            40_000};
        try (Options options = new Options().setCreateIfMissing(true); WriteOptions write = new WriteOptions()) {
            try (RocksDB db = RocksDB.open(options, dir.toString())) {
                for (int r = 0; r < rooms.length; r++) {
                    BatchWriter writer = new BatchWriter();
                    // one small put, then one sized so that the records end rooms[r] bytes before the buffer's end
                    writer.put(0, new byte[] {'a', (byte) r}, new byte[] {1, 2, 3});
                    int recordsEnd = (1 << 16) - rooms[r];
                    int value = valueLength(recordsEnd - (12 + 8) - 1 - 1 - 2);
                    byte[] big = new byte[value];
                    Arrays.fill(big, (byte) r);
                    writer.put(0, new byte[] {'b', (byte) r}, big);
                    byte[] batch = writer.take();
                    // the rooms below ~10 bytes grow the buffer instead (a put asks for room for its longest form)
                    assertEquals(rooms[r] < 10 ? batch.length : 1 << 16, batch.length, "room " + rooms[r]);
                    try (WriteBatch wb = new WriteBatch(batch)) {
                        assertEquals(2, wb.count(), "room " + rooms[r]);
                        db.write(write, wb);
                    }
                    assertArrayEquals(new byte[] {1, 2, 3}, db.get(new byte[] {'a', (byte) r}));
                    assertArrayEquals(big, db.get(new byte[] {'b', (byte) r}));
                }
            }
            try (RocksDB db = RocksDB.open(options, dir.toString())) {
                // a big batch grows the buffer; a small one after it is copied (the WAL would write its padding)
                BatchWriter writer = new BatchWriter();
                writer.put(0, new byte[] {'c'}, new byte[1 << 20]);
                try (WriteBatch wb = new WriteBatch(writer.take())) {
                    db.write(write, wb);
                }
                writer.put(0, new byte[] {'d'}, new byte[] {4});
                byte[] small = writer.take();
                assertEquals(12 + 5, small.length);
                try (WriteBatch wb = new WriteBatch(small)) {
                    db.write(write, wb);
                }
                assertEquals(1 << 20, db.get(new byte[] {'c'}).length);
                assertArrayEquals(new byte[] {4}, db.get(new byte[] {'d'}));
            }
            try (RocksDB db = RocksDB.open(options, dir.toString())) { // from the WAL
                for (int r = 0; r < rooms.length; r++) {
                    assertArrayEquals(new byte[] {1, 2, 3}, db.get(new byte[] {'a', (byte) r}));
                    assertEquals((byte) r, db.get(new byte[] {'b', (byte) r})[0]);
                }
            }
        }
    }

    /** The value length v for which varint(v) + v is {@code total}. */
    private static int valueLength(int total) {
        for (int lengthBytes = 1; lengthBytes <= 5; lengthBytes++) {
            int v = total - lengthBytes;
            if (v >= 0 && (v < 1 << (7 * lengthBytes)) && (lengthBytes == 1 || v >= 1 << (7 * (lengthBytes - 1)))) {
                return v;
            }
        }
        throw new IllegalArgumentException("no value fills " + total + " bytes");
    }

    /**
     * A record cut into parts ({@link BatchWriter#split}) applies, part after part, exactly what the whole batch
     * applies: puts and deletes in two families, keys and values of every varint length, every part size.
     */
    @Test
    void aSplitBatchAppliesWhatTheWholeOneApplies() throws Exception {
        RocksDB.loadLibrary();
        java.util.Random rnd = new java.util.Random(59);
        try (org.rocksdb.DBOptions options = new org.rocksdb.DBOptions().setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true); WriteOptions write = new WriteOptions();
                org.rocksdb.ColumnFamilyOptions cf = new org.rocksdb.ColumnFamilyOptions()) {
            for (int maxBytes : new int[] {1, 100, 4096, 1 << 20}) {
                java.util.List<org.rocksdb.ColumnFamilyHandle> handles = new java.util.ArrayList<>();
                Path at = dir.resolve("split-" + maxBytes);
                java.nio.file.Files.createDirectories(at);
                try (RocksDB whole = RocksDB.open(options, at.resolve("whole").toString(), java.util.List.of(
                        new org.rocksdb.ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cf),
                        new org.rocksdb.ColumnFamilyDescriptor("rows".getBytes(), cf)), handles)) {
                    java.util.List<org.rocksdb.ColumnFamilyHandle> partHandles = new java.util.ArrayList<>();
                    try (RocksDB parts = RocksDB.open(options, at.resolve("parts").toString(), java.util.List.of(
                            new org.rocksdb.ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, cf),
                            new org.rocksdb.ColumnFamilyDescriptor("rows".getBytes(), cf)), partHandles)) {
                        BatchWriter writer = new BatchWriter();
                        for (int i = 0; i < 500; i++) {
                            int family = rnd.nextBoolean() ? 0 : handles.get(1).getID();
                            byte[] key = new byte[1 + rnd.nextInt(rnd.nextInt(10) == 0 ? 300 : 20)];
                            rnd.nextBytes(key);
                            key[0] = (byte) rnd.nextInt(8); // keys repeat: later writes win
                            if (rnd.nextInt(4) == 0) {
                                writer.delete(family, key);
                            } else {
                                byte[] value = new byte[rnd.nextInt(rnd.nextInt(10) == 0 ? 20_000 : 100)];
                                rnd.nextBytes(value);
                                writer.put(family, key, value);
                            }
                        }
                        int length = writer.seal();
                        byte[] batch = Arrays.copyOf(writer.buffer(), length);
                        try (WriteBatch wb = new WriteBatch(batch)) {
                            whole.write(write, wb);
                        }
                        int count = 0;
                        for (byte[] part : BatchWriter.split(batch, maxBytes)) {
                            try (WriteBatch wb = new WriteBatch(part)) {
                                count += wb.count();
                                parts.write(write, wb);
                            }
                        }
                        assertEquals(500, count, "every record in one part");
                        for (int f = 0; f < 2; f++) {
                            try (org.rocksdb.RocksIterator a = whole.newIterator(handles.get(f));
                                    org.rocksdb.RocksIterator b = parts.newIterator(partHandles.get(f))) {
                                a.seekToFirst();
                                b.seekToFirst();
                                while (a.isValid()) {
                                    assertEquals(true, b.isValid(), "parts of " + maxBytes + " bytes: a row missing");
                                    assertArrayEquals(a.key(), b.key());
                                    assertArrayEquals(a.value(), b.value());
                                    a.next();
                                    b.next();
                                }
                                assertEquals(false, b.isValid(), "parts of " + maxBytes + " bytes: a row too many");
                            }
                        }
                    } finally {
                        partHandles.forEach(org.rocksdb.ColumnFamilyHandle::close);
                    }
                } finally {
                    handles.forEach(org.rocksdb.ColumnFamilyHandle::close);
                }
            }
        }
    }
}
