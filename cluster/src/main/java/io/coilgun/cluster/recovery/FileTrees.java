package io.coilgun.cluster.recovery;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Deleting directory trees (snapshots, staged copies). */
final class FileTrees {
    private FileTrees() {
    }

    static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    static void deleteQuietly(Path dir) {
        try {
            delete(dir);
        } catch (UncheckedIOException e) {
            // left for the next start's cleanup
        }
    }

    static void deleteChildren(Path dir) throws IOException {
        try (Stream<Path> children = Files.list(dir)) {
            for (Path child : children.toList()) {
                delete(child);
            }
        }
    }
}
