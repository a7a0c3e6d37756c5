package io.coilgun.storage.state;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The state store against a map model through kill -9: a child JVM ({@link ChangelogWriter}) commits an owner's
 * rows (through the changelog, materialized meanwhile by the materializer, now and then at once, across clean
 * reopens) until it is killed at a random moment; in some cycles the newest WAL file is then cut short (a torn last
 * record: the last commits may be lost) and the newest changelog file gets the beginning of a record no commit counts
 * (the writer killed in the middle of appending it). Reopened, the store is at some commit {@code n}, no earlier than the last one reported (a few records
 * earlier when the WAL was cut), its changelog is empty (materialized at open), and the family holds exactly the
 * model's rows after commits 1..n. Four cycles, each going on from the last.
 */
class StateStoreCrashTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(240)
    void killedAtAnyMomentReopensAtACommitWithExactlyItsRows() throws Exception {
        long seed = Long.getLong("coilgun.seed", System.nanoTime());
        System.out.println("StateStoreCrashTest seed=" + seed);
        Random rnd = new Random(seed);
        Path state = dir.resolve("state");
        for (int cycle = 0; cycle < 4; cycle++) {
            Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-cp", System.getProperty("java.class.path"), ChangelogWriter.class.getName(),
                    state.toString(), String.valueOf(seed)).redirectErrorStream(true).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                    StandardCharsets.UTF_8));
            int progress = 3 + rnd.nextInt(rnd.nextBoolean() ? 30 : 150);
            long reported = -1;
            for (int seen = 0; seen < progress; ) {
                String line = out.readLine();
                assertTrue(line != null, "the writer runs");
                if (line.startsWith("committed ")) {
                    reported = Long.parseLong(line.substring("committed ".length()));
                    seen++;
                } else if (!line.startsWith("started at ")) {
                    System.out.println("writer: " + line);
                }
            }
            Thread.sleep(rnd.nextInt(50));
            child.destroyForcibly();
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            boolean torn = cycle % 2 == 1;
            if (torn) {
                cutNewestLog(state, 1 + rnd.nextInt(200));
                tearChangelog(state.resolve("changelog"), rnd);
            }
            try (StateStore store = StateStore.open(state)) {
                long n = ChangelogWriter.committed(store);
                assertTrue(n >= reported - (torn ? 8 : 0), "cycle " + cycle + ": commit " + reported
                        + " reported before the kill, reopened at " + n);
                assertEquals(0, store.changelogRecordsBehind(), "materialized at open");
                Map<String, String> model = ChangelogWriter.model(seed, n);
                Map<String, String> rows = ChangelogWriter.rows(store);
                assertEquals(model, rows, "cycle " + cycle + ": the rows of commits 1.." + n);
                System.out.println("cycle " + cycle + ": killed after commit " + reported + (torn ? ", WAL cut" : "")
                        + "; reopened at " + n + " with " + rows.size() + " rows");
            }
        }
    }

    /**
     * Appends the beginning of a record to the newest changelog file: the writer was killed in the middle of a
     * checkpoint's record, before the checkpoint committed.
     */
    private static void tearChangelog(Path dir, Random rnd) throws Exception {
        Path newest;
        try (var files = Files.list(dir)) {
            newest = files.max(Comparator.comparing(f -> Long.parseLong(f.getFileName().toString().split("\\.")[0])))
                    .orElse(null);
        }
        if (newest == null) {
            return;
        }
        byte[] torn = new byte[1 + rnd.nextInt(40)];
        rnd.nextBytes(torn);
        torn[0] = 0; // a length that runs past the end
        Files.write(newest, torn, java.nio.file.StandardOpenOption.APPEND);
    }

    /** Cuts {@code bytes} off the end of the newest WAL file of the store (a torn last record). */
    private static void cutNewestLog(Path store, int bytes) throws Exception {
        Path newest;
        try (var files = Files.list(store)) {
            newest = files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .max(Comparator.comparing(f -> f.getFileName().toString())).orElse(null);
        }
        if (newest == null) {
            return;
        }
        try (RandomAccessFile f = new RandomAccessFile(newest.toFile(), "rw")) {
            f.setLength(Math.max(0, f.length() - bytes));
        }
    }
}
