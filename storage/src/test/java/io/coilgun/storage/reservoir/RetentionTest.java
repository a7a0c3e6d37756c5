package io.coilgun.storage.reservoir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Retention deletes whole segments older than what windows reach, and only those; a reopen sees the rest. */
class RetentionTest {
    @TempDir
    Path dir;

    @Test
    void deletesSegmentsBehindTheLongestWindow() throws Exception {
        ReservoirConfig config = new ReservoirConfig(100, 1_000, 10_000, 8_000);
        try (ReservoirIO io = new ReservoirIO(1, 1)) {
            Reservoir r = Reservoir.open(dir, config, io, new ChunkCache(4, 1 << 20), null);
            byte[] ckpt = null;
            for (long seq = 0; seq < 20_000; seq++) {
                r.append(seq * 10, seq, 1, ReservoirModelTest.payload(seq, 20));
                if (seq % 100 == 99) {
                    ckpt = r.checkpoint();
                    r.committed();
                }
            }
            ckpt = r.checkpoint();
            r.committed();
            waitForWriter(r);
            long segmentsBefore = segments(dir);
            long keepFrom = r.streamTime() - 20_000; // the last 2,000 events
            r.retainFrom(keepFrom);
            waitForWriter(r);
            long segmentsAfter = segments(dir);
            assertTrue(segmentsBefore > 10 && segmentsAfter < segmentsBefore / 2,
                    "segments before " + segmentsBefore + ", after " + segmentsAfter);
            assertTrue(r.oldestTime() < keepFrom, "nothing at or after keepFrom was dropped");
            AtomicLong n = new AtomicLong();
            r.scan(keepFrom - 1, r.streamTime(), (s, t, schema, data, off, len) -> n.incrementAndGet());
            assertEquals(2_001, n.get(), "every event from keepFrom on is still there");
            r.close();

            Reservoir again = Reservoir.open(dir, config, io, new ChunkCache(4, 1 << 20), ckpt);
            AtomicLong m = new AtomicLong();
            again.scan(keepFrom - 1, again.streamTime(), (s, t, schema, data, off, len) -> m.incrementAndGet());
            assertEquals(2_001, m.get(), "after a reopen too");
            again.close();
        }
    }

    static void waitForWriter(Reservoir r) throws InterruptedException {
        for (int i = 0; i < 500 && (r.stats().pendingChunks > 0 || !r.writeQueue().isEmpty()); i++) {
            Thread.sleep(10);
        }
    }

    static long segments(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith("segment-")).count();
        }
    }
}
