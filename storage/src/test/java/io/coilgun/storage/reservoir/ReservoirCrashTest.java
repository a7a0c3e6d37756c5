package io.coilgun.storage.reservoir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 while appending: a child JVM ({@link CrashAppender}) appends and checkpoints until it is killed at a
 * random moment; the reservoir then reopens at the last checkpoint, must hold exactly the events up to the offset
 * it reports (none lost, none twice, in key order, payloads intact), and takes the replayed rest. Three cycles.
 */
class ReservoirCrashTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void killedWhileAppendingLosesNothing() throws Exception {
        long seed = Long.getLong("coilgun.seed", System.nanoTime());
        System.out.println("ReservoirCrashTest seed=" + seed);
        Random rnd = new Random(seed);
        try (ReservoirIO io = new ReservoirIO(1, 1)) {
            for (int cycle = 0; cycle < 3; cycle++) {
                Process child = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m", "-cp", System.getProperty("java.class.path"), CrashAppender.class.getName(),
                        dir.toString()).redirectErrorStream(true).start();
                BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                        StandardCharsets.UTF_8));
                // wait for a few progress lines ("appended N" is printed after the checkpoint at or before N),
                // however slowly the child JVM starts, then kill it at a random moment after that
                int progressLines = 2 + rnd.nextInt(6);
                long reported = -1;
                for (int i = 0; i < progressLines; i++) {
                    String line = out.readLine();
                    assertTrue(line != null, "the appender runs");
                    if (line.startsWith("appended ")) {
                        reported = Long.parseLong(line.substring("appended ".length()));
                    } else {
                        i--; // the "started at" line does not count
                    }
                }
                Thread.sleep(rnd.nextInt(200));
                child.destroyForcibly();
                assertTrue(child.waitFor(30, TimeUnit.SECONDS));

                byte[] saved = Files.readAllBytes(dir.resolve("checkpoint"));
                Reservoir r = Reservoir.open(dir.resolve("reservoir"), CrashAppender.CONFIG, io,
                        new ChunkCache(4, 1 << 20), saved);
                try {
                    long last = r.lastSeq();
                    assertTrue(last >= reported - 37, "cycle " + cycle + ": checkpointed up to " + reported
                            + " before the kill, reopened at " + last);
                    checkHolds(r, last, "cycle " + cycle + " after the kill");
                    for (long s = last + 1; s <= last + 300; s++) {
                        r.append(CrashAppender.time(s), s, 1, ReservoirModelTest.payload(s, (int) (s % 50)));
                    }
                    checkHolds(r, last + 300, "cycle " + cycle + " after the replay");
                    System.out.println("cycle " + cycle + ": killed after offset " + last + "; " + r.stats());
                } finally {
                    // the replayed events were never checkpointed: the next child starts again after 'last'
                    r.abandonForTest();
                }
            }
        }
    }

    /** The reservoir holds exactly events 0..last, each once, in key order, with their payloads. */
    static void checkHolds(Reservoir r, long last, String where) {
        List<Long> seqs = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        r.scan(Long.MIN_VALUE / 2, Long.MAX_VALUE / 2, (seq, time, schema, data, off, len) -> {
            seqs.add(seq);
            times.add(time);
            assertEquals(CrashAppender.time(seq), time, where + ": time of " + seq);
            assertArrayEquals(ReservoirModelTest.payload(seq, (int) (seq % 50)),
                    java.util.Arrays.copyOfRange(data, off, off + len), where + ": payload of " + seq);
        });
        assertEquals(last + 1, seqs.size(), where + ": events held");
        assertEquals(last, seqs.stream().mapToLong(Long::longValue).max().orElse(-1), where);
        assertEquals(last + 1, seqs.stream().distinct().count(), where + ": none twice");
        for (int i = 1; i < seqs.size(); i++) {
            int c = Keys.compare(times.get(i - 1), seqs.get(i - 1), times.get(i), seqs.get(i));
            assertTrue(c < 0, where + ": key order at " + i);
        }
    }
}
