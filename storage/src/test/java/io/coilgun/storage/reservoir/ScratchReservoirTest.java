package io.coilgun.storage.reservoir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A scratch reservoir (a backfill's copy of what it applied) reads like a durable one, writes nothing while retention
 * keeps its chunks under the memory bound, and writes only its oldest chunks past it.
 */
class ScratchReservoirTest {
    private static final ReservoirConfig CONFIG = new ReservoirConfig(100, 1_000, 10_000, 8_000);

    @TempDir
    Path dir;

    @Test
    void writesNothingWhileRetentionKeepsUp() throws Exception {
        try (ReservoirIO io = new ReservoirIO(1, 1)) {
            Reservoir r = Reservoir.openScratch(dir, CONFIG, io, new ChunkCache(4, 1 << 20), 64 << 10);
            List<Key> tail = new ArrayList<>();
            r.iterator(2_000).subscribe(Long.MIN_VALUE, (seq, t, schema, data, off, len) -> {
                assertEquals(seq, java.nio.ByteBuffer.wrap(data, off, len).getLong(), "the payload of its event");
                tail.add(new Key(t, seq));
            });
            List<Key> appended = appendOutOfOrder(r, 20_000, 500);
            assertEquals(0, files(dir), "no journal, no segment");
            ReservoirStats stats = r.stats();
            assertTrue(stats.sealed > 500 && stats.pendingChunks < 40,
                    "old chunks left memory: " + stats.pendingChunks + " of " + stats.sealed + " in memory");
            assertEquals(passedBy(appended, r.streamTime() - 2_000), tail, "the iterator saw every event once, in order");
            assertThrows(IllegalStateException.class, r::checkpoint);
            r.discard();
        }
    }

    @Test
    void writesItsOldestChunksPastTheMemoryBound() throws Exception {
        try (ReservoirIO io = new ReservoirIO(1, 1)) {
            Reservoir r = Reservoir.openScratch(dir, CONFIG, io, new ChunkCache(4, 1 << 20), 8 << 10);
            List<Key> appended = appendOutOfOrder(r, 20_000, 0);
            RetentionTest.waitForWriter(r);
            assertTrue(RetentionTest.segments(dir) > 0, "chunks past the bound are written");
            assertTrue(r.stats().pendingChunks <= 12, "memory holds about the bound: " + r.stats().pendingChunks);
            List<Key> scanned = new ArrayList<>();
            r.scan(Long.MIN_VALUE, r.streamTime(), (seq, t, schema, data, off, len) -> {
                assertEquals(seq, java.nio.ByteBuffer.wrap(data, off, len).getLong());
                scanned.add(new Key(t, seq));
            });
            assertEquals(passedBy(appended, r.streamTime()), scanned, "written and in-memory chunks read as one");

            // retention then drops the written chunks and the ones in memory after them
            long keepFrom = r.streamTime() - 5_000;
            r.retainFrom(keepFrom);
            RetentionTest.waitForWriter(r);
            List<Key> kept = new ArrayList<>();
            r.scan(keepFrom - 1, r.streamTime(), (seq, t, schema, data, off, len) -> kept.add(new Key(t, seq)));
            assertEquals(appended.stream().filter(e -> e.t() >= keepFrom).sorted(ScratchReservoirTest::byKey).toList()
                    .size(), kept.size(), "everything from keepFrom on is still there");
            r.discard();
        }
    }

    /** Events at about 10 µs apart, 5% of them up to the lateness late; retention every {@code retainEvery} events. */
    private static List<Key> appendOutOfOrder(Reservoir r, int n, int retainEvery) {
        SplittableRandom rnd = new SplittableRandom(7);
        List<Key> appended = new ArrayList<>();
        long time = 1_000;
        for (long seq = 0; seq < n; seq++) {
            time += 10;
            long t = rnd.nextInt(20) == 0 ? Math.max(r.streamTime() - 100, time - rnd.nextInt(100)) : time;
            t = Math.max(t, r.streamTime() - 100);
            r.append(t, seq, 1, ReservoirModelTest.payload(seq, 20));
            r.advance();
            appended.add(new Key(t, seq));
            if (retainEvery > 0 && seq % retainEvery == retainEvery - 1) {
                r.retainFrom(r.streamTime() - 2_000 - 100);
            }
        }
        return appended;
    }

    private static List<Key> passedBy(List<Key> events, long horizon) {
        return events.stream().filter(e -> e.t() <= horizon).sorted(ScratchReservoirTest::byKey).toList();
    }

    private static int byKey(Key a, Key b) {
        return a.t() != b.t() ? Long.compare(a.t(), b.t()) : Long.compare(a.seq(), b.seq());
    }

    private static long files(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.count();
        }
    }

    /** An event's key. */
    private record Key(long t, long seq) {
    }
}
