package io.coilgun.storage.state;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A RocksDB write batch built in Java, in RocksDB's own serialized form (the WAL record of a batch), and handed to
 * RocksDB in one call ({@code new WriteBatch(byte[])}): a commit of tens of thousands of rows costs one JNI copy
 * instead of one JNI call per row (which dominated the commits in the engine's profile).
 *
 * <pre>
 * fixed64 sequence (0: assigned by the write), fixed32 count, then per record:
 *   put:    0x01 key value | 0x05 varint32(family) key value      (the plain tag for the default family, id 0)
 *   delete: 0x00 key       | 0x04 varint32(family) key
 *   log data: 0x03 blob (not counted, kept in the WAL only, never in the memtables or tables)
 * key, value, blob: varint32 length, bytes
 * </pre>
 *
 * RocksDB takes the batch as a whole array, which it copies: {@link #take} hands over the writer's own buffer, the
 * room after the records filled with one log-data record, so a commit allocates nothing (a copy of a few MB per
 * commit was most of what the engine allocated). The WAL writes the padding too: a batch with more room after it
 * than its own size (and 64 KiB) is copied instead, and the buffer shrinks to the recent batches.
 */
final class BatchWriter {
    private static final int HEADER = 12;
    private static final int MIN_BUFFER = 1 << 16;
    private static final byte LOG_DATA = 0x03;
    private byte[] buf = new byte[MIN_BUFFER];
    private int length = HEADER;
    private int count;
    /** The largest recent batch, in bytes (decays by 1/16 per batch): what the buffer is sized for. */
    private int recentMax;

    void put(int family, byte[] key, byte[] value) {
        ensure(11 + key.length + value.length);
        tag(family, 0x01, 0x05);
        bytes(key);
        bytes(value);
        count++;
    }

    /**
     * A put whose key is {@code prefix} followed by {@code key[keyOff .. keyOff + keyLen)} and whose value is
     * {@code value[valueOff .. valueOff + valueLen)}: no array is made for either.
     */
    void put(int family, byte[] prefix, byte[] key, int keyOff, int keyLen, byte[] value, int valueOff,
            int valueLen) {
        ensure(11 + prefix.length + keyLen + valueLen);
        tag(family, 0x01, 0x05);
        varint(prefix.length + keyLen);
        System.arraycopy(prefix, 0, buf, length, prefix.length);
        System.arraycopy(key, keyOff, buf, length + prefix.length, keyLen);
        length += prefix.length + keyLen;
        varint(valueLen);
        System.arraycopy(value, valueOff, buf, length, valueLen);
        length += valueLen;
        count++;
    }

    /**
     * Writes the batch's header (its count) and returns its length: {@link #buffer()}{@code [0 .. length)} is then
     * the batch in its serialized form, until the writer is used again.
     */
    int seal() {
        Arrays.fill(buf, 0, 8, (byte) 0);
        for (int i = 0; i < 4; i++) {
            buf[8 + i] = (byte) (count >>> (8 * i)); // little-endian
        }
        return length;
    }

    byte[] buffer() {
        return buf;
    }

    /**
     * Cuts the serialized batch {@code batch} (as this class writes them) into batches of about {@code maxBytes}
     * each, at record boundaries, in order: several writes of it then hold RocksDB's write queue a short time each.
     */
    static List<byte[]> split(byte[] batch, int maxBytes) {
        List<byte[]> out = new ArrayList<>();
        int start = HEADER;
        int at = HEADER;
        int count = 0;
        while (at < batch.length) {
            int tag = batch[at++];
            if (tag == 0x05 || tag == 0x04) {
                at = skipVarint(batch, at); // the family
            }
            at = skipSlice(batch, at); // the key, or a log record's blob
            if (tag == 0x01 || tag == 0x05) {
                at = skipSlice(batch, at); // the value
            }
            if (tag != LOG_DATA) {
                count++;
            }
            if (at - start >= maxBytes || at >= batch.length) {
                byte[] part = new byte[HEADER + at - start];
                System.arraycopy(batch, start, part, HEADER, at - start);
                for (int i = 0; i < 4; i++) {
                    part[8 + i] = (byte) (count >>> (8 * i));
                }
                out.add(part);
                start = at;
                count = 0;
            }
        }
        return out;
    }

    private static int skipVarint(byte[] b, int at) {
        while ((b[at] & 0x80) != 0) {
            at++;
        }
        return at + 1;
    }

    private static int skipSlice(byte[] b, int at) {
        int length = 0;
        int shift = 0;
        while (true) {
            int v = b[at++];
            length |= (v & 0x7F) << shift;
            if ((v & 0x80) == 0) {
                return at + length;
            }
            shift += 7;
        }
    }

    void delete(int family, byte[] key) {
        ensure(11 + key.length);
        tag(family, 0x00, 0x04);
        bytes(key);
        count++;
    }

    int count() {
        return count;
    }

    /** Forgets what was written (a batch abandoned half-built). */
    void clear() {
        length = HEADER;
        count = 0;
    }

    /**
     * The batch's serialized form, valid until the writer is used again (RocksDB copies it): the writer's buffer, its
     * room after the records taken by a log-data record. The writer is empty again after.
     */
    byte[] take() {
        recentMax = Math.max(length, recentMax - (recentMax >> 4));
        // (more than twice: a buffer just grown by half for a batch is never shrunk after it)
        if (buf.length > MIN_BUFFER && buf.length > 2 * recentMax) {
            buf = Arrays.copyOf(buf, Math.max(MIN_BUFFER, recentMax + (recentMax >> 2))); // commits got smaller
        }
        byte[] out = buf;
        int room = buf.length - length;
        if (room > Math.max(MIN_BUFFER, length) || !pad(room)) {
            // a batch much smaller than the buffer (the WAL would write the padding) or one byte of room (no
            // record is that small): a copy of its own
            out = Arrays.copyOf(buf, length);
        }
        Arrays.fill(out, 0, 8, (byte) 0);
        for (int i = 0; i < 4; i++) {
            out[8 + i] = (byte) (count >>> (8 * i)); // little-endian
        }
        length = HEADER;
        count = 0;
        return out;
    }

    /**
     * Fills the {@code room} bytes after the records with log-data records (one, or two where a length's varint
     * would need one byte more or less); false for one byte, which no record fits.
     */
    private boolean pad(int room) {
        int at = length;
        boolean padded = room == 0 || logData(room) || room > 2 && logData(2) && logData(room - 2);
        length = at; // the records end where they did: the padding is no part of the next batch
        return padded;
    }

    /** Writes a log-data record of exactly {@code bytes} bytes at {@link #length}, if one is that long. */
    private boolean logData(int bytes) {
        for (int lengthBytes = 1; lengthBytes <= 5; lengthBytes++) {
            int blob = bytes - 1 - lengthBytes;
            if (blob >= 0 && varintBytes(blob) == lengthBytes) {
                buf[length++] = LOG_DATA;
                varint(blob);
                length += blob;
                return true;
            }
        }
        return false;
    }

    private static int varintBytes(int v) {
        int n = 1;
        while ((v & ~0x7F) != 0) {
            v >>>= 7;
            n++;
        }
        return n;
    }

    private void tag(int family, int plain, int withFamily) {
        if (family == 0) {
            buf[length++] = (byte) plain;
        } else {
            buf[length++] = (byte) withFamily;
            varint(family);
        }
    }

    private void bytes(byte[] b) {
        varint(b.length);
        System.arraycopy(b, 0, buf, length, b.length);
        length += b.length;
    }

    private void varint(int v) {
        while ((v & ~0x7F) != 0) {
            buf[length++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buf[length++] = (byte) v;
    }

    private void ensure(int more) {
        if (length + more > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length + (buf.length >> 1), length + more));
        }
    }
}
