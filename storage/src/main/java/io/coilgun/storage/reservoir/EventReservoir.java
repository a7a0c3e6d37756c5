package io.coilgun.storage.reservoir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A task's events on local disk, in arrival order, one append-only file.
 *
 * <p>This is the walking-skeleton reservoir: events are kept on disk, not in memory, and read back by
 * {@link ReservoirReader}s (the window tails). Compressed time-ordered chunks, segments, the chunk cache and
 * read-ahead come with the reservoir issue; the contract below stays.
 *
 * <pre>
 * record := int length-of-rest, long seq, long eventTime, long streamTime, long kafkaOffset, bytes payload
 * </pre>
 * {@code streamTime} is the task's stream time once the event was accepted: it lets a reader know that no
 * later record can be older than {@code streamTime - lateness}. Positions are byte offsets.
 *
 * <p>Appends are buffered in memory and written to the file (the OS page cache) by {@link #flush()}, which the
 * task processor calls before it checkpoints; a reader reaching the buffered part flushes first. After a
 * crash the owner truncates the file to the size recorded in its last checkpoint ({@link #open}).
 * Single-threaded: only the task's processor thread touches it.
 */
public final class EventReservoir implements AutoCloseable {
    static final int RECORD_HEADER = 4 + 8 * 4;

    private final Path file;
    private final FileChannel channel;
    private ByteBuffer pending = ByteBuffer.allocate(64 * 1024);
    private long flushedSize;

    private EventReservoir(Path file, FileChannel channel, long size) {
        this.file = file;
        this.channel = channel;
        this.flushedSize = size;
    }

    /**
     * Opens (or creates) the reservoir in {@code dir}, cutting it to {@code durableSize} bytes: whatever was
     * written after the last checkpoint is replayed from Kafka.
     */
    public static EventReservoir open(Path dir, long durableSize) {
        try {
            Files.createDirectories(dir);
            Path file = dir.resolve("events.log");
            FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
            long size = ch.size();
            if (size < durableSize) {
                ch.close();
                throw new IllegalStateException("reservoir " + file + " holds " + size
                        + " bytes but its checkpoint says " + durableSize + ": the data directory is damaged");
            }
            if (size > durableSize) {
                ch.truncate(durableSize);
            }
            return new EventReservoir(file, ch, durableSize);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open reservoir in " + dir, e);
        }
    }

    /** Appends one event and returns its position. */
    public long append(long seq, long eventTime, long streamTime, long kafkaOffset, byte[] payload) {
        int need = RECORD_HEADER + payload.length;
        if (pending.remaining() < need) {
            flush();
            if (pending.capacity() < need) {
                pending = ByteBuffer.allocate(Math.max(need, pending.capacity() * 2));
            }
        }
        long position = size();
        pending.putInt(need - 4).putLong(seq).putLong(eventTime).putLong(streamTime).putLong(kafkaOffset)
                .put(payload);
        return position;
    }

    /** Bytes appended so far, buffered ones included. */
    public long size() {
        return flushedSize + pending.position();
    }

    /** Writes buffered appends to the file. */
    public void flush() {
        if (pending.position() == 0) {
            return;
        }
        pending.flip();
        try {
            while (pending.hasRemaining()) {
                flushedSize += channel.write(pending, flushedSize);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write reservoir " + file, e);
        } finally {
            pending.clear();
        }
    }

    /** A reader starting at {@code position} (a record boundary). */
    public ReservoirReader reader(long position) {
        return new ReservoirReader(this, position);
    }

    int read(ByteBuffer into, long position) {
        if (position + into.remaining() > flushedSize) {
            flush();
        }
        try {
            return channel.read(into, position);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read reservoir " + file, e);
        }
    }

    @Override
    public void close() {
        try {
            flush();
        } finally {
            try {
                channel.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
