package io.coilgun.server.session;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The rows of a big COPY past the ones it keeps in memory, as the client sent them (each row's line and text
 * fields), in a file of the node's spool directory until the COPY ends: a statement's memory stays bounded whatever
 * its size. The rows were checked as they came; at CopyDone they are read back, in order, as often as needed.
 */
final class CopySpool implements AutoCloseable {
    private final Path file;
    private DataOutputStream out;
    private long rows;

    CopySpool(Path dir) {
        try {
            Files.createDirectories(dir);
            this.file = Files.createTempFile(dir, "copy-", ".spool");
            this.out = new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(file), 1 << 16));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot spool the COPY's rows in " + dir, e);
        }
    }

    /** Deletes the spool files a node that stopped during a COPY left in {@code dir}. */
    static void deleteLeftovers(Path dir) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (var files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.deleteIfExists(f);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear the COPY spool directory " + dir, e);
        }
    }

    void add(long line, String[] fields) {
        try {
            out.writeLong(line);
            out.writeInt(fields.length);
            for (String f : fields) {
                if (f == null) {
                    out.writeInt(-1);
                } else {
                    byte[] b = f.getBytes(StandardCharsets.UTF_8);
                    out.writeInt(b.length);
                    out.write(b);
                }
            }
            rows++;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot spool the COPY's rows in " + file.getParent(), e);
        }
    }

    long rows() {
        return rows;
    }

    /** The rows written, from the first; the spool takes no more. */
    Reader read() {
        try {
            if (out != null) {
                out.close();
                out = null;
            }
            return new Reader(new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16)));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the COPY's spooled rows in " + file.getParent(), e);
        }
    }

    /** Deletes the file. */
    @Override
    public void close() {
        try {
            if (out != null) {
                out.close();
                out = null;
            }
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Reads the spooled rows in order. */
    static final class Reader implements AutoCloseable {
        private final DataInputStream in;
        private long line;

        private Reader(DataInputStream in) {
            this.in = in;
        }

        /** The next row's fields, or null at the end; {@link #line()} is then its line. */
        String[] next() {
            try {
                try {
                    line = in.readLong();
                } catch (EOFException end) {
                    return null;
                }
                String[] fields = new String[in.readInt()];
                for (int i = 0; i < fields.length; i++) {
                    int n = in.readInt();
                    if (n >= 0) {
                        byte[] b = new byte[n];
                        in.readFully(b);
                        fields[i] = new String(b, StandardCharsets.UTF_8);
                    }
                }
                return fields;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the COPY's spooled rows", e);
            }
        }

        /** The line of the row {@link #next} returned last. */
        long line() {
            return line;
        }

        @Override
        public void close() {
            try {
                in.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
