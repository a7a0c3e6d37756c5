package io.coilgun.storage.reservoir;

import com.github.luben.zstd.Zstd;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * The on-disk form of a chunk: a frame of a fixed header, the zstd-compressed events and a CRC32C.
 *
 * <pre>
 * int   MAGIC ('CGCK')
 * int   length of the rest of the frame (header from VERSION on, body, crc)
 * int   VERSION (1)
 * long  chunk number (consecutive within a reservoir)
 * int   event count
 * int   schema id (the highest schema version among its events)
 * long  first event time, last event time
 * long  seq (Kafka offset) of the last event in key order
 * long  lowest and highest seq in the chunk (to tell which Kafka offsets it holds)
 * int   raw length, compressed length
 * bytes zstd(events)
 * int   CRC32C of everything from VERSION to the end of the compressed events
 *
 * events, in key order: varint (time - previous time), zigzag varint (seq - previous seq), varint schema,
 *                       varint payload length, payload
 * </pre>
 * Times are sorted, so the time deltas are small and non-negative; zstd takes care of the rest.
 */
final class ChunkCodec {
    static final int MAGIC = 0x4347434B;
    static final int VERSION = 1;
    /** Bytes before the compressed events: magic, length, then the header fields. */
    static final int HEADER = 4 + 4 + 4 + 8 + 4 + 4 + 8 + 8 + 8 + 8 + 8 + 4 + 4;

    private ChunkCodec() {
    }

    /** The chunk as a frame ready to append to a segment. */
    static byte[] encode(Chunk c, int level) {
        ByteBuffer raw = ByteBuffer.allocate(rawSize(c));
        long prevTime = c.times[0];
        long prevSeq = 0;
        for (int i = 0; i < c.count(); i++) {
            putVarLong(raw, c.times[i] - prevTime);
            putVarLong(raw, zigzag(c.seqs[i] - prevSeq));
            putVarLong(raw, c.schemas[i]);
            int len = c.starts[i + 1] - c.starts[i];
            putVarLong(raw, len);
            raw.put(c.data, c.starts[i], len);
            prevTime = c.times[i];
            prevSeq = c.seqs[i];
        }
        int rawLength = raw.position();
        byte[] compressed = Zstd.compress(Arrays.copyOf(raw.array(), rawLength), level);
        ByteBuffer frame = ByteBuffer.allocate(HEADER + compressed.length + 4);
        frame.putInt(MAGIC).putInt(0).putInt(VERSION).putLong(c.no).putInt(c.count()).putInt(c.maxSchema())
                .putLong(c.firstTime()).putLong(c.lastTime()).putLong(c.lastSeq()).putLong(c.minSeq())
                .putLong(c.maxSeq()).putInt(rawLength).putInt(compressed.length).put(compressed);
        frame.putInt(4, frame.capacity() - 8);
        CRC32C crc = new CRC32C();
        crc.update(frame.array(), 8, frame.position() - 8);
        frame.putInt((int) crc.getValue());
        return frame.array();
    }

    private static int rawSize(Chunk c) {
        return c.data.length + c.count() * (10 + 10 + 5 + 5);
    }

    /** What the header says, read from the first {@link #HEADER} bytes of a frame. */
    record Header(int frameLength, long no, int count, int schema, long firstTime, long lastTime, long lastSeq,
            long minSeq, long maxSeq, int rawLength, int compressedLength) {
    }

    /** The header, or null if {@code b} does not start a frame. */
    static Header header(ByteBuffer b) {
        if (b.remaining() < HEADER || b.getInt(b.position()) != MAGIC) {
            return null;
        }
        ByteBuffer h = b.duplicate();
        h.getInt();
        int length = h.getInt();
        if (h.getInt() != VERSION) {
            return null;
        }
        Header header = new Header(length + 8, h.getLong(), h.getInt(), h.getInt(), h.getLong(), h.getLong(),
                h.getLong(), h.getLong(), h.getLong(), h.getInt(), h.getInt());
        if (header.compressedLength < 0 || header.rawLength < 0 || header.count <= 0
                || HEADER + header.compressedLength + 4 != header.frameLength) {
            return null;
        }
        return header;
    }

    /** True if the frame's checksum matches. */
    static boolean verify(byte[] frame, int off, int frameLength) {
        CRC32C crc = new CRC32C();
        crc.update(frame, off + 8, frameLength - 12);
        int stored = ByteBuffer.wrap(frame, off + frameLength - 4, 4).getInt();
        return stored == (int) crc.getValue();
    }

    /**
     * Decodes a whole frame (checked with {@link #verify}).
     *
     * @throws IllegalStateException if the frame is damaged
     */
    static Chunk decode(byte[] frame, int off, int frameLength) {
        Header h = header(ByteBuffer.wrap(frame, off, frameLength));
        if (h == null || h.frameLength != frameLength || !verify(frame, off, frameLength)) {
            throw new IllegalStateException("damaged chunk frame");
        }
        byte[] raw = new byte[h.rawLength];
        long n = Zstd.decompressByteArray(raw, 0, raw.length, frame, off + HEADER, h.compressedLength);
        if (n != h.rawLength) {
            throw new IllegalStateException("chunk " + h.no + " decompressed to " + n + " bytes, expected " + h.rawLength);
        }
        ByteBuffer b = ByteBuffer.wrap(raw);
        int count = h.count;
        long[] times = new long[count];
        long[] seqs = new long[count];
        int[] schemas = new int[count];
        int[] starts = new int[count + 1];
        byte[] data = new byte[h.rawLength];
        long time = h.firstTime;
        long seq = 0;
        int at = 0;
        for (int i = 0; i < count; i++) {
            time += getVarLong(b);
            seq += unzigzag(getVarLong(b));
            times[i] = time;
            seqs[i] = seq;
            schemas[i] = (int) getVarLong(b);
            int len = (int) getVarLong(b);
            starts[i] = at;
            b.get(data, at, len);
            at += len;
        }
        starts[count] = at;
        return new Chunk(h.no, times, seqs, schemas, starts, Arrays.copyOf(data, at));
    }

    static long zigzag(long v) {
        return (v << 1) ^ (v >> 63);
    }

    static long unzigzag(long v) {
        return (v >>> 1) ^ -(v & 1);
    }

    static void putVarLong(ByteBuffer b, long v) {
        while ((v & ~0x7FL) != 0) {
            b.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        b.put((byte) v);
    }

    static long getVarLong(ByteBuffer b) {
        long v = 0;
        int shift = 0;
        while (true) {
            byte x = b.get();
            v |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                return v;
            }
            shift += 7;
            if (shift > 63) {
                throw new IllegalStateException("varint too long");
            }
        }
    }
}
