package io.coilgun.storage.reservoir;

import java.nio.ByteBuffer;

/**
 * Reads a reservoir's records in arrival order from a position. {@link #next()} moves to the next record if
 * one has been appended; the accessors then describe it. Reads go through a 64 KiB buffer.
 */
public final class ReservoirReader {
    private final EventReservoir reservoir;
    private final ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
    private long bufStart;
    private long position;
    private long recordPosition = -1;

    private long seq;
    private long eventTime;
    private long streamTime;
    private long kafkaOffset;
    private byte[] payload;

    ReservoirReader(EventReservoir reservoir, long position) {
        this.reservoir = reservoir;
        this.position = position;
        this.bufStart = position;
        buf.limit(0);
    }

    /** True if there is a record at the current position; moves past it. */
    public boolean hasNext() {
        return position < reservoir.size();
    }

    public boolean next() {
        if (!hasNext()) {
            return false;
        }
        ensure(4);
        int len = buf.getInt(buf.position());
        ensure(4 + len);
        buf.getInt();
        recordPosition = position;
        seq = buf.getLong();
        eventTime = buf.getLong();
        streamTime = buf.getLong();
        kafkaOffset = buf.getLong();
        payload = new byte[len - 32];
        buf.get(payload);
        position += 4 + len;
        return true;
    }

    /** Peeks the stream time of the next record, or Long.MAX_VALUE if there is none. */
    public long peekStreamTime() {
        if (!hasNext()) {
            return Long.MAX_VALUE;
        }
        ensure(4 + 24);
        return buf.getLong(buf.position() + 4 + 16);
    }

    private void ensure(int bytes) {
        long bufPos = bufStart + buf.position();
        if (bufPos != position) {
            buf.limit(0);
            bufStart = position;
        }
        if (buf.remaining() >= bytes) {
            return;
        }
        ByteBuffer target = buf;
        if (bytes > buf.capacity()) {
            throw new IllegalStateException("record of " + bytes + " bytes exceeds reader buffer");
        }
        target.compact();
        bufStart = position - 0;
        long readFrom = position + target.position();
        while (target.position() < bytes) {
            int n = reservoir.read(target, readFrom);
            if (n <= 0) {
                throw new IllegalStateException("reservoir ended inside a record at " + position);
            }
            readFrom += n;
        }
        target.flip();
        bufStart = position;
    }

    /** Position of the next record to read. */
    public long position() {
        return position;
    }

    /** Position of the record last returned by {@link #next()}. */
    public long recordPosition() {
        return recordPosition;
    }

    public long seq() {
        return seq;
    }

    public long eventTime() {
        return eventTime;
    }

    public long streamTime() {
        return streamTime;
    }

    public long kafkaOffset() {
        return kafkaOffset;
    }

    public byte[] payload() {
        return payload;
    }
}
