package io.coilgun.storage.snapshot;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * What a copy of a task must hold to be the task as of one checkpoint: the offset to go on from, and each file with
 * its length and the CRC32C of those bytes. The source computes it once; the receiver checks every file against it
 * (and keeps, on a retry, the files it already has that match).
 *
 * <p>Text form: a line {@code coilgun-snapshot 1 <nextOffset>}, then one line per file {@code <length> <crc32c hex>
 * <path>}.
 */
public record SnapshotManifest(long nextOffset, List<Entry> files) {
    private static final String MAGIC = "coilgun-snapshot";
    private static final int VERSION = 1;

    /** One file: its path in the snapshot, its length, the CRC32C of its bytes. */
    public record Entry(String path, long length, long crc) {
        public Entry {
            new SnapshotFile(path, length); // the same checks
        }
    }

    public SnapshotManifest {
        files = List.copyOf(files);
    }

    /** The manifest of the snapshot in {@code dir}: reads the prefix of each file that belongs to it. */
    public static SnapshotManifest of(Path dir, long nextOffset, List<SnapshotFile> files) {
        List<Entry> entries = new ArrayList<>(files.size());
        for (SnapshotFile f : files) {
            entries.add(new Entry(f.path(), f.length(), crc(dir.resolve(f.path()), f.length())));
        }
        return new SnapshotManifest(nextOffset, entries);
    }

    /** The CRC32C of the first {@code length} bytes of {@code file}; -1 when it is shorter or absent. */
    public static long crc(Path file, long length) {
        CRC32C crc = new CRC32C();
        byte[] buffer = new byte[64 << 10];
        try (InputStream in = Files.newInputStream(file)) {
            long left = length;
            while (left > 0) {
                int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
                if (n < 0) {
                    return -1;
                }
                crc.update(buffer, 0, n);
                left -= n;
            }
        } catch (NoSuchFileException e) {
            return -1;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        return crc.getValue();
    }

    /** The bytes of all its files. */
    public long bytes() {
        return files.stream().mapToLong(Entry::length).sum();
    }

    public String encode() {
        StringBuilder out = new StringBuilder(MAGIC + " " + VERSION + " " + nextOffset + "\n");
        for (Entry e : files) {
            out.append(e.length()).append(' ').append(Long.toHexString(e.crc())).append(' ').append(e.path())
                    .append('\n');
        }
        return out.toString();
    }

    /** @throws IllegalArgumentException when the text is not a manifest this version reads */
    public static SnapshotManifest decode(String text) {
        String[] lines = text.split("\n");
        String[] head = lines[0].split(" ");
        if (head.length != 3 || !head[0].equals(MAGIC) || !head[1].equals(String.valueOf(VERSION))) {
            throw new IllegalArgumentException("not a snapshot manifest of version " + VERSION + ": " + lines[0]);
        }
        List<Entry> entries = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            if (lines[i].isEmpty()) {
                continue;
            }
            String[] f = lines[i].split(" ", 3);
            entries.add(new Entry(f[2], Long.parseLong(f[0]), Long.parseUnsignedLong(f[1], 16)));
        }
        return new SnapshotManifest(Long.parseLong(head[2]), entries);
    }

    public byte[] toBytes() {
        return encode().getBytes(StandardCharsets.UTF_8);
    }
}
