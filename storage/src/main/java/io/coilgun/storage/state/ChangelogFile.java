package io.coilgun.storage.state;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.zip.CRC32C;

/**
 * The changelog's records in files of their own beside the store's RocksDB ({@code <state>/changelog/}): segments
 * {@code <first record's sequence>.changelog}, each a run of records
 * <pre>
 *   int length of the payload | int CRC32C of the payload | long sequence | payload (a serialized RocksDB batch)
 * </pre>
 * appended by the owner's thread (one write per checkpoint, no memtable) and read back by the materializer, or at
 * open. Whether a record counts is the store's to say (the sequence its checkpoint committed): a record after it, or
 * a torn one, is cut at open. A segment rolls past {@link #SEGMENT_BYTES}; segments whose records are all
 * materialized are deleted. Files are read and written through {@link RandomAccessFile}, not a {@code FileChannel}:
 * an interrupt of the thread (a task's open canceled by a rebalance) would close a channel under it.
 */
final class ChangelogFile implements AutoCloseable {
    static final long SEGMENT_BYTES = 64L << 20;
    private static final int HEADER = 16;
    private static final String SUFFIX = ".changelog";

    private final Path dir;
    /** Segments by their first record's sequence; the last one is appended to. */
    private final ConcurrentSkipListMap<Long, Path> segments = new ConcurrentSkipListMap<>();
    private RandomAccessFile appending;
    private long appendingEnd;
    private final byte[] header = new byte[HEADER];
    private final CRC32C crc = new CRC32C();

    private ChangelogFile(Path dir) {
        this.dir = dir;
    }

    /** A record read back: its sequence and payload. */
    record Record(long seq, byte[] payload) {
    }

    /**
     * The changelog in {@code dir}, its records with sequence in {@code (materialized, written]} given to {@code
     * recovered} in order; what follows {@code written} (a record whose checkpoint did not commit, a torn one) is cut,
     * and segments with nothing after {@code materialized} are deleted.
     */
    static ChangelogFile open(Path dir, long materialized, long written, java.util.function.Consumer<Record> recovered)
            throws IOException {
        Files.createDirectories(dir);
        ChangelogFile log = new ChangelogFile(dir);
        List<Path> files = new ArrayList<>();
        try (var listing = Files.list(dir)) {
            listing.filter(f -> f.getFileName().toString().endsWith(SUFFIX)).forEach(files::add);
        }
        for (Path f : files) {
            String name = f.getFileName().toString();
            log.segments.put(Long.parseLong(name.substring(0, name.length() - SUFFIX.length())), f);
        }
        long expected = materialized + 1;
        for (var e : new ArrayList<>(log.segments.entrySet())) {
            Path f = e.getValue();
            try (RandomAccessFile ch = new RandomAccessFile(f.toFile(), "rw")) {
                long at = 0;
                long size = ch.length();
                long cut = -1;
                while (at + HEADER <= size) {
                    byte[] headerBytes = new byte[HEADER];
                    ch.seek(at);
                    ch.readFully(headerBytes);
                    ByteBuffer h = ByteBuffer.wrap(headerBytes);
                    int length = h.getInt();
                    int sum = h.getInt();
                    long seq = h.getLong();
                    if (length < 0 || at + HEADER + length > size || seq > written) {
                        cut = at;
                        break;
                    }
                    byte[] payload = new byte[length];
                    ch.readFully(payload);
                    CRC32C c = new CRC32C();
                    c.update(payload);
                    if ((int) c.getValue() != sum) {
                        cut = at;
                        break;
                    }
                    if (seq >= expected) {
                        if (seq != expected) {
                            throw new StateStoreException("changelog record " + expected + " is missing in " + dir
                                    + " (found " + seq + ")", null);
                        }
                        recovered.accept(new Record(seq, payload));
                        expected++;
                    }
                    at += HEADER + length;
                }
                if (cut < 0 && at < size) {
                    cut = at; // a torn header
                }
                if (cut >= 0) {
                    ch.setLength(cut);
                }
            }
        }
        if (expected <= written) {
            throw new StateStoreException("changelog records " + expected + " to " + written + " are missing in "
                    + dir, null);
        }
        log.deleteUpTo(written); // every record is materialized now
        return log;
    }

    /**
     * Appends record {@code seq} (the payload {@code data[0 .. length)}), before the checkpoint that counts it
     * commits; returns where it starts. On the owner's thread.
     */
    long append(long seq, byte[] data, int length) throws IOException {
        if (appending == null || appendingEnd >= SEGMENT_BYTES) {
            roll(seq);
        }
        crc.reset();
        crc.update(data, 0, length);
        ByteBuffer.wrap(header).putInt(length).putInt((int) crc.getValue()).putLong(seq);
        long at = appendingEnd;
        appending.seek(at);
        appending.write(header);
        appending.write(data, 0, length);
        appendingEnd = at + HEADER + length;
        return at;
    }

    /** Cuts the record appended last, which starts at {@code at} (its checkpoint failed to commit). */
    void cut(long at) throws IOException {
        appending.setLength(at);
        appendingEnd = at;
    }

    private void roll(long first) throws IOException {
        if (appending != null) {
            appending.close();
        }
        Path f = dir.resolve(first + SUFFIX);
        appending = new RandomAccessFile(f.toFile(), "rw");
        appending.setLength(0);
        appendingEnd = 0;
        segments.put(first, f);
    }

    /** The payload of record {@code seq}, {@code length} bytes at {@code at} of its segment. */
    byte[] read(long seq, long at, int length) throws IOException {
        Path f = segments.floorEntry(seq).getValue();
        byte[] payload = new byte[length];
        try (RandomAccessFile in = new RandomAccessFile(f.toFile(), "r")) {
            in.seek(at + HEADER);
            in.readFully(payload);
        }
        return payload;
    }

    /** Deletes the segments whose records all have sequences up to {@code seq} (materialized). */
    void deleteUpTo(long seq) {
        for (var e : segments.headMap(seq + 1).entrySet()) {
            Long next = segments.higherKey(e.getKey()); // the segment appended to has none: never deleted here
            if (next != null && next <= seq + 1) {
                try {
                    Files.deleteIfExists(e.getValue());
                } catch (IOException ignored) {
                    continue; // deleted at the next open
                }
                segments.remove(e.getKey());
            }
        }
    }

    @Override
    public void close() throws IOException {
        if (appending != null) {
            appending.close();
        }
    }
}
