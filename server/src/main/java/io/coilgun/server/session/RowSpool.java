package io.coilgun.server.session;

import io.coilgun.sql.query.IntervalValue;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.Period;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The rows a scrollable cursor has read, by number (1, 2, …), to go back to: the first {@value #IN_MEMORY} in memory,
 * the rest in a temporary file (as Postgres' tuplestore spills to disk), in blocks of {@value #BLOCK} rows with the
 * file offset of each block kept; the last block read back is cached, so a cursor stepping backwards reads each block
 * once. The file is deleted by {@link #close}.
 */
final class RowSpool implements AutoCloseable {
    static final int IN_MEMORY = 10_000;
    static final int BLOCK = 256;

    private final List<Object[]> memory = new ArrayList<>();
    private final int inMemory;
    private long count;
    private Path file;
    private FileChannel channel;
    private long[] blockOffsets = new long[64];
    private final ByteArrayOutputStream pending = new ByteArrayOutputStream();
    private int pendingRows;
    private long cachedBlock = -1;
    private List<Object[]> cached;

    RowSpool() {
        this(IN_MEMORY);
    }

    /** @param inMemory rows kept in memory before the file is used */
    RowSpool(int inMemory) {
        this.inMemory = inMemory;
    }

    long count() {
        return count;
    }

    void add(Object[] row) {
        if (count < inMemory) {
            memory.add(row);
            count++;
            return;
        }
        try {
            write(new DataOutputStream(pending), row);
            pendingRows++;
            count++;
            if (pendingRows == BLOCK) {
                flush();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a cursor's rows could not be written to its spool file", e);
        }
    }

    /** Row {@code n} (1-based, at most {@link #count}). */
    Object[] get(long n) {
        if (n <= memory.size()) {
            return memory.get((int) (n - 1));
        }
        long spilled = n - 1 - inMemory;
        long block = spilled / BLOCK;
        int index = (int) (spilled % BLOCK);
        if (block != cachedBlock || block >= flushedBlocks()) { // the block being filled grows: read it again
            cached = readBlock(block);
            cachedBlock = block;
        }
        return cached.get(index);
    }

    private List<Object[]> readBlock(long block) {
        try {
            long flushedBlocks = flushedBlocks();
            byte[] bytes;
            int rows;
            if (block < flushedBlocks) {
                long from = blockOffsets[(int) block];
                long to = block + 1 < flushedBlocks ? blockOffsets[(int) block + 1] : channel.size();
                ByteBuffer buf = ByteBuffer.allocate((int) (to - from));
                while (buf.hasRemaining()) {
                    if (channel.read(buf, from + buf.position()) < 0) {
                        throw new IOException("spool file ended early");
                    }
                }
                bytes = buf.array();
                rows = BLOCK;
            } else { // the block being filled: not in the file yet
                bytes = pending.toByteArray();
                rows = pendingRows;
            }
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            List<Object[]> out = new ArrayList<>(rows);
            for (int i = 0; i < rows; i++) {
                out.add(read(in));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException("a cursor's rows could not be read from its spool file", e);
        }
    }

    private long flushedBlocks() {
        return (count - inMemory - pendingRows) / BLOCK;
    }

    private void flush() throws IOException {
        if (channel == null) {
            file = Files.createTempFile("coilgun-cursor-", ".rows");
            file.toFile().deleteOnExit();
            channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
        long block = flushedBlocks();
        if (block >= blockOffsets.length) {
            blockOffsets = Arrays.copyOf(blockOffsets, blockOffsets.length * 2);
        }
        long offset = channel.size();
        blockOffsets[(int) block] = offset;
        ByteBuffer buf = ByteBuffer.wrap(pending.toByteArray());
        while (buf.hasRemaining()) {
            channel.write(buf, offset + buf.position());
        }
        pending.reset();
        pendingRows = 0;
        if (cachedBlock == block) {
            cachedBlock = -1; // read back while it was being filled: it has all its rows now
        }
    }

    @Override
    public void close() {
        memory.clear();
        cached = null;
        try {
            if (channel != null) {
                channel.close();
            }
            if (file != null) {
                Files.deleteIfExists(file);
            }
        } catch (IOException e) {
            // a temporary file; deleteOnExit takes it at the latest
        }
        channel = null;
        file = null;
    }

    // The values a query gives (QueryEngine), each with a tag: the same Java classes come back.
    private static final byte NULL = 0;
    private static final byte INT = 1;
    private static final byte LONG = 2;
    private static final byte SHORT = 3;
    private static final byte DOUBLE = 4;
    private static final byte FLOAT = 5;
    private static final byte TEXT = 6;
    private static final byte BOOLEAN = 7;
    private static final byte NUMERIC = 8;
    private static final byte TIMESTAMP = 9;
    private static final byte DATE = 10;
    private static final byte BYTES = 11;
    private static final byte LIST = 12;
    private static final byte DURATION = 13;
    private static final byte PERIOD = 14;
    private static final byte INTERVAL = 15;

    private static void write(DataOutputStream out, Object[] row) throws IOException {
        out.writeInt(row.length);
        for (Object v : row) {
            writeValue(out, v);
        }
    }

    private static Object[] read(DataInputStream in) throws IOException {
        Object[] row = new Object[in.readInt()];
        for (int i = 0; i < row.length; i++) {
            row[i] = readValue(in);
        }
        return row;
    }

    private static void writeValue(DataOutputStream out, Object v) throws IOException {
        if (v == null) {
            out.writeByte(NULL);
        } else if (v instanceof Integer i) {
            out.writeByte(INT);
            out.writeInt(i);
        } else if (v instanceof Long l) {
            out.writeByte(LONG);
            out.writeLong(l);
        } else if (v instanceof Short s) {
            out.writeByte(SHORT);
            out.writeShort(s);
        } else if (v instanceof Double d) {
            out.writeByte(DOUBLE);
            out.writeDouble(d);
        } else if (v instanceof Float f) {
            out.writeByte(FLOAT);
            out.writeFloat(f);
        } else if (v instanceof String s) {
            out.writeByte(TEXT);
            writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
        } else if (v instanceof Boolean b) {
            out.writeByte(BOOLEAN);
            out.writeBoolean(b);
        } else if (v instanceof BigDecimal d) {
            out.writeByte(NUMERIC);
            out.writeInt(d.scale());
            writeBytes(out, d.unscaledValue().toByteArray());
        } else if (v instanceof LocalDateTime t) {
            out.writeByte(TIMESTAMP);
            out.writeLong(t.toLocalDate().toEpochDay());
            out.writeLong(t.toLocalTime().toNanoOfDay());
        } else if (v instanceof LocalDate d) {
            out.writeByte(DATE);
            out.writeLong(d.toEpochDay());
        } else if (v instanceof byte[] b) {
            out.writeByte(BYTES);
            writeBytes(out, b);
        } else if (v instanceof List<?> list) {
            out.writeByte(LIST);
            out.writeInt(list.size());
            for (Object e : list) {
                writeValue(out, e);
            }
        } else if (v instanceof Duration d) { // an interval of days and time
            out.writeByte(DURATION);
            out.writeLong(d.getSeconds());
            out.writeInt(d.getNano());
        } else if (v instanceof IntervalValue iv) { // an interval as Postgres keeps it
            out.writeByte(INTERVAL);
            out.writeInt(iv.months());
            out.writeInt(iv.days());
            out.writeLong(iv.micros());
        } else if (v instanceof Period p) { // an interval of months
            out.writeByte(PERIOD);
            out.writeInt(p.getYears());
            out.writeInt(p.getMonths());
            out.writeInt(p.getDays());
        } else { // no other class comes from a query; as text rather than lost
            out.writeByte(TEXT);
            writeBytes(out, String.valueOf(v).getBytes(StandardCharsets.UTF_8));
        }
    }

    private static Object readValue(DataInputStream in) throws IOException {
        byte tag = in.readByte();
        return switch (tag) {
            case NULL -> null;
            case INT -> in.readInt();
            case LONG -> in.readLong();
            case SHORT -> in.readShort();
            case DOUBLE -> in.readDouble();
            case FLOAT -> in.readFloat();
            case TEXT -> new String(readBytes(in), StandardCharsets.UTF_8);
            case BOOLEAN -> in.readBoolean();
            case NUMERIC -> {
                int scale = in.readInt();
                yield new BigDecimal(new BigInteger(readBytes(in)), scale);
            }
            case TIMESTAMP -> LocalDateTime.of(LocalDate.ofEpochDay(in.readLong()),
                    LocalTime.ofNanoOfDay(in.readLong()));
            case DATE -> LocalDate.ofEpochDay(in.readLong());
            case BYTES -> readBytes(in);
            case DURATION -> Duration.ofSeconds(in.readLong(), in.readInt());
            case PERIOD -> Period.of(in.readInt(), in.readInt(), in.readInt());
            case INTERVAL -> new IntervalValue(in.readInt(), in.readInt(), in.readLong());
            case LIST -> {
                int n = in.readInt();
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(readValue(in));
                }
                yield list;
            }
            default -> throw new IOException("unknown value tag " + tag);
        };
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return b;
    }
}
