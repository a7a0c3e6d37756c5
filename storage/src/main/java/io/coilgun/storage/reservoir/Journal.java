package io.coilgun.storage.reservoir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The arrivals of a reservoir that are not yet in durable chunks, on disk in arrival order, so that a
 * checkpoint holds the open chunk exactly without rewriting it: appends are buffered and written at each
 * checkpoint ({@link #flush}), and the file rolls whenever a chunk is sealed. A journal file is deleted once every
 * event in it is in a durable chunk (by the writer, after it synced those chunks).
 *
 * <pre>
 * file journal-&lt;n&gt;.log: records of  int length-of-rest, long time, long seq, int schema, payload
 * </pre>
 */
final class Journal implements AutoCloseable {
    private static final int RECORD_HEADER = 4 + 8 + 8 + 4;

    private final Path dir;
    private long fileNo;
    private FileChannel channel;
    private long flushedSize;
    private ByteBuffer pending = ByteBuffer.allocate(64 * 1024);
    /** The greatest key in the current file: tells when the file may be deleted. */
    private long maxTime = Long.MIN_VALUE;
    private long maxSeq = Long.MIN_VALUE;

    /** A closed journal file and the greatest key in it. */
    record Closed(Path file, long maxTime, long maxSeq) {
    }

    private Journal(Path dir, long fileNo) {
        this.dir = dir;
        this.fileNo = fileNo;
        this.channel = create(file(dir, fileNo));
    }

    /** Starts a new, empty journal file numbered {@code fileNo}. */
    static Journal start(Path dir, long fileNo) {
        return new Journal(dir, fileNo);
    }

    static Path file(Path dir, long no) {
        return dir.resolve(String.format("journal-%019d.log", no));
    }

    private static FileChannel create(Path file) {
        try {
            return FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create journal " + file, e);
        }
    }

    long fileNo() {
        return fileNo;
    }

    /** Bytes of the current file that a checkpoint covers, after {@link #flush}. */
    long flushedSize() {
        return flushedSize;
    }

    void append(long time, long seq, int schema, byte[] payload) {
        int need = RECORD_HEADER + payload.length;
        if (pending.remaining() < need) {
            flush();
            if (pending.capacity() < need) {
                pending = ByteBuffer.allocate(Math.max(need, pending.capacity() * 2));
            }
        }
        pending.putInt(need - 4).putLong(time).putLong(seq).putInt(schema).put(payload);
        if (Keys.compare(time, seq, maxTime, maxSeq) > 0) {
            maxTime = time;
            maxSeq = seq;
        }
    }

    /** Writes buffered records to the file (the OS page cache). */
    void flush() {
        if (pending.position() == 0) {
            return;
        }
        pending.flip();
        try {
            while (pending.hasRemaining()) {
                flushedSize += channel.write(pending, flushedSize);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write journal in " + dir, e);
        } finally {
            pending.clear();
        }
    }

    /** Closes the current file (flushing it) and starts the next one; returns the closed file. */
    Closed roll() {
        flush();
        Closed closed = new Closed(file(dir, fileNo), maxTime, maxSeq);
        closeChannel();
        fileNo++;
        channel = create(file(dir, fileNo));
        flushedSize = 0;
        maxTime = Long.MIN_VALUE;
        maxSeq = Long.MIN_VALUE;
        return closed;
    }

    private void closeChannel() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Tests only: closes the file without writing what is buffered, as a crash would. */
    void abandon() {
        pending.clear();
        closeChannel();
    }

    @Override
    public void close() {
        try {
            flush();
        } finally {
            closeChannel();
        }
    }

    /** One record read back at recovery. */
    record Entry(long time, long seq, int schema, byte[] payload) {
    }

    /**
     * Recovery: reads every journal file up to the checkpointed one ({@code lastFileNo}, of which only the first
     * {@code lastSize} bytes count), deletes what lies beyond, and gives each record to {@code into}. Returns the
     * closed files that remain (each with its greatest key), oldest first.
     */
    static List<Closed> recover(Path dir, long lastFileNo, long lastSize, Consumer<Entry> into) {
        List<Closed> remaining = new ArrayList<>();
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().startsWith("journal-")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
        for (Path f : files) {
            long no = Long.parseLong(f.getFileName().toString().substring(8, 27));
            try {
                if (no > lastFileNo) {
                    Files.delete(f);
                    continue;
                }
                byte[] bytes = Files.readAllBytes(f);
                int limit = no == lastFileNo ? (int) Math.min(lastSize, bytes.length) : bytes.length;
                if (no == lastFileNo && bytes.length < lastSize) {
                    throw new IllegalStateException("journal " + f + " holds " + bytes.length
                            + " bytes but the checkpoint says " + lastSize + ": the data directory is damaged");
                }
                if (no == lastFileNo && bytes.length > lastSize) {
                    try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE)) {
                        ch.truncate(lastSize); // appended after the checkpoint: replayed from Kafka
                    }
                }
                ByteBuffer b = ByteBuffer.wrap(bytes, 0, limit);
                long maxTime = Long.MIN_VALUE;
                long maxSeq = Long.MIN_VALUE;
                while (b.remaining() >= 4) {
                    int len = b.getInt();
                    long time = b.getLong();
                    long seq = b.getLong();
                    int schema = b.getInt();
                    byte[] payload = new byte[len - (RECORD_HEADER - 4)];
                    b.get(payload);
                    into.accept(new Entry(time, seq, schema, payload));
                    if (Keys.compare(time, seq, maxTime, maxSeq) > 0) {
                        maxTime = time;
                        maxSeq = seq;
                    }
                }
                remaining.add(new Closed(f, maxTime, maxSeq));
            } catch (IOException e) {
                throw new UncheckedIOException("cannot recover journal " + f, e);
            }
        }
        return remaining;
    }
}
