package io.coilgun.storage.reservoir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A history cursor reads every event from its time on, in key order, and tells a background reader when its next step
 * would wait for the disk (so that the reader yields instead of keeping live events waiting).
 */
class HistoryCursorTest {
    @TempDir
    Path dir;

    @Test
    void readsEveryEventAndNeverMakesItsReaderWaitForTheDisk() throws Exception {
        ReservoirConfig config = new ReservoirConfig(100, 1_000, 10_000, 8_000);
        try (ReservoirIO io = new ReservoirIO(1, 1)) {
            // a cache of 2 chunks: the cursor's chunks come from the disk
            Reservoir r = Reservoir.open(dir, config, io, new ChunkCache(2, 1 << 20), null);
            for (long seq = 0; seq < 5_000; seq++) {
                r.append(seq * 10, seq, 1, ReservoirModelTest.payload(seq, 20));
                if (seq % 100 == 99) {
                    r.checkpoint();
                    r.committed();
                }
            }
            r.checkpoint();
            r.committed();
            RetentionTest.waitForWriter(r);

            long from = 1_000 * 10; // from the event of seq 1,000 on
            HistoryCursor cursor = r.history(from);
            // the only loader is held busy, so the load asked for cannot finish before ready() looks at it
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<Void> held = io.onLoader(() -> {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            long readAheads = r.stats().readAheads;
            assertFalse(cursor.ready(), "its first chunk is on the disk, not in memory: a loader is asked for it");
            assertEquals(readAheads + 1, r.stats().readAheads, "one load asked for");
            release.countDown();
            held.get(10, TimeUnit.SECONDS);
            List<Long> seqs = new ArrayList<>();
            int notReady = 1;
            int steps = 0;
            while (!cursor.done()) {
                if (!cursor.ready()) {
                    notReady++;
                    Thread.sleep(1); // what a unit does: polls, and comes back in a later slice
                    continue;
                }
                long before = r.stats().stalls + r.stats().syncLoads;
                cursor.step((seq, time, schema, data, off, len) -> seqs.add(seq));
                assertEquals(before, r.stats().stalls + r.stats().syncLoads, "a ready step neither waits nor reads");
                steps++;
            }
            assertEquals(4_000, seqs.size());
            for (int i = 0; i < seqs.size(); i++) {
                assertEquals(1_000 + i, seqs.get(i));
            }
            assertTrue(notReady >= 1 && steps > 10, "not ready " + notReady + " times, " + steps + " steps");
            r.close();
        }
    }
}
