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
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * A reservoir's sealed chunks on disk: append-only segment files {@code segment-<n>.seg} of chunk frames
 * ({@link ChunkCodec}), rolling at a fixed size. Appends come from the writer thread only; reads (chunk loads)
 * from any thread, through positional reads on shared channels.
 */
final class Segments implements AutoCloseable {
    private final Path dir;
    private final long rollBytes;
    private final Map<Integer, FileChannel> readers = new ConcurrentHashMap<>();
    private int current = -1;
    private FileChannel appender;
    private long appendSize;

    /** Where a chunk's frame is. */
    record Location(int segment, long position, int length) {
    }

    /** A chunk found at recovery: its header and location. */
    record Recovered(ChunkCodec.Header header, Location location) {
    }

    /**
     * Whether appends are made durable (fsync). A scratch reservoir's are not: they are thrown away at a restart, and
     * syncing a fill's 100s of MB made the file system's journal, and with it every writer of the node (RocksDB's WAL,
     * the task journals), wait.
     */
    private final boolean durable;

    Segments(Path dir, long rollBytes) {
        this(dir, rollBytes, true);
    }

    Segments(Path dir, long rollBytes, boolean durable) {
        this.dir = dir;
        this.rollBytes = rollBytes;
        this.durable = durable;
    }

    static Path file(Path dir, int segment) {
        return dir.resolve(String.format("segment-%010d.seg", segment));
    }

    /**
     * Recovery: reads every segment's chunk headers in order, verifying checksums of the last segment (a crash can
     * only tear its tail). The first damaged or incomplete frame and everything after it are cut off.
     */
    List<Recovered> recover() {
        List<Recovered> chunks = new ArrayList<>();
        List<Integer> numbers = new ArrayList<>();
        try (Stream<Path> s = Files.list(dir)) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("segment-") && n.endsWith(".seg"))
                    .forEach(n -> numbers.add(Integer.parseInt(n.substring(8, 18))));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
        numbers.sort(null);
        boolean torn = false;
        for (int i = 0; i < numbers.size(); i++) {
            int seg = numbers.get(i);
            Path f = file(dir, seg);
            if (torn) {
                delete(f);
                continue;
            }
            boolean last = i == numbers.size() - 1;
            try (FileChannel ch = FileChannel.open(f, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                long size = ch.size();
                long pos = 0;
                ByteBuffer head = ByteBuffer.allocate(ChunkCodec.HEADER);
                while (pos < size) {
                    head.clear();
                    readFully(ch, head, pos);
                    head.flip();
                    ChunkCodec.Header h = ChunkCodec.header(head);
                    boolean ok = h != null && pos + h.frameLength() <= size
                            && (chunks.isEmpty() || h.no() == chunks.get(chunks.size() - 1).header().no() + 1);
                    if (ok && last) {
                        ByteBuffer frame = ByteBuffer.allocate(h.frameLength());
                        readFully(ch, frame, pos);
                        ok = ChunkCodec.verify(frame.array(), 0, h.frameLength());
                    }
                    if (!ok) {
                        ch.truncate(pos); // a torn or damaged tail: its events are still in the journal
                        torn = true;
                        break;
                    }
                    chunks.add(new Recovered(h, new Location(seg, pos, h.frameLength())));
                    pos += h.frameLength();
                }
                size = ch.size();
                if (last) {
                    current = seg;
                    appendSize = size;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot recover segment " + f, e);
            }
        }
        return chunks;
    }

    private static void readFully(FileChannel ch, ByteBuffer b, long pos) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b, pos + b.position()) < 0) {
                return;
            }
        }
    }

    /** Writer thread: appends a frame (not yet synced) and returns where it is. */
    Location append(byte[] frame) {
        try {
            if (appender == null || appendSize >= rollBytes) {
                roll();
            }
            long pos = appendSize;
            ByteBuffer b = ByteBuffer.wrap(frame);
            while (b.hasRemaining()) {
                appendSize += appender.write(b, appendSize);
            }
            return new Location(current, pos, frame.length);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot append to segment " + current + " in " + dir, e);
        }
    }

    private void roll() throws IOException {
        if (appender != null) {
            if (durable) {
                appender.force(false);
            }
            appender.close();
            if (appendSize >= rollBytes) {
                current++;
                appendSize = 0;
            }
        }
        if (current < 0) {
            current = 0;
            appendSize = 0;
        }
        appender = FileChannel.open(file(dir, current), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    }

    /** Writer thread: makes every append so far durable. */
    void sync() {
        try {
            if (appender != null && durable) {
                appender.force(false);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot sync segment " + current + " in " + dir, e);
        }
    }

    /** Any thread: reads a chunk's frame. */
    byte[] read(Location at) {
        FileChannel ch = readers.computeIfAbsent(at.segment(), s -> {
            try {
                return FileChannel.open(file(dir, s), StandardOpenOption.READ);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open segment " + s + " in " + dir, e);
            }
        });
        ByteBuffer b = ByteBuffer.allocate(at.length());
        try {
            readFully(ch, b, at.position());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read segment " + at.segment() + " in " + dir, e);
        }
        if (b.hasRemaining()) {
            throw new IllegalStateException("segment " + at.segment() + " ends inside chunk at " + at.position());
        }
        return b.array();
    }

    /** Writer thread: deletes a whole segment that retention let go. */
    void deleteSegment(int segment) {
        if (segment == current) {
            return;
        }
        FileChannel r = readers.remove(segment);
        if (r != null) {
            try {
                r.close();
            } catch (IOException e) {
                // closing a read channel of a file being deleted: nothing to do
            }
        }
        delete(file(dir, segment));
    }

    int currentSegment() {
        return current;
    }

    private static void delete(Path f) {
        try {
            Files.deleteIfExists(f);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + f, e);
        }
    }

    /** Bytes of all segment files. */
    long diskBytes() {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("segment-")).mapToLong(p -> {
                try {
                    return Files.size(p);
                } catch (IOException e) {
                    return 0;
                }
            }).sum();
        } catch (IOException e) {
            return 0;
        }
    }

    @Override
    public void close() {
        try {
            if (appender != null) {
                if (durable) {
                    appender.force(false);
                }
                appender.close();
            }
            for (FileChannel r : readers.values()) {
                r.close();
            }
            readers.clear();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
