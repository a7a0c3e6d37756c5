package io.coilgun.cluster.recovery;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import io.coilgun.storage.snapshot.SnapshotManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task copied over HTTP from a node's {@link SnapshotServer} by {@link PeerCopy}, while the source keeps
 * processing, goes on exactly as the source; a copy cut short or damaged is resumed and repaired; a stale copy takes
 * its unchanged files from its own disk; a peer without the token gets nothing.
 */
class PeerCopyTest {
    static final ReservoirIO IO = ReservoirIO.defaults();
    static final long T0 = 1_700_000_000_000_000L;
    static final StreamDef STREAM = new StreamDef("p", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
            new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card", ColumnType.VARCHAR, false),
            new StreamColumn("amount", ColumnType.DOUBLE, false)), 1, 0, List.of("card"), 1, 10 * Durations.SECOND,
            LatePolicy.REJECT, "");
    static final MetricDef METRIC = new MetricDef("m", "p", List.of(
            new AggregationDef(AggregationKind.SUM, 3, "total", ColumnType.DOUBLE),
            new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT)),
            List.of(2), "card", WindowSpec.sliding(Durations.HOUR), "");
    static final TaskId TASK = new TaskId("coilgun.stream.p.card", 0);

    @TempDir
    Path dir;

    @AfterAll
    static void closeIo() {
        IO.close();
    }

    static List<byte[]> log(int n) {
        EventCodec codec = new EventCodec(STREAM);
        Random rnd = new Random(5);
        List<byte[]> log = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            log.add(codec.encode(new Object[] {(long) i, T0 + i * 50_000L, "c" + rnd.nextInt(50),
                rnd.nextInt(10_000) / 100.0}, 0));
        }
        return log;
    }

    static TaskPlan open(Path d) {
        return TaskPlan.open(d, STREAM, List.of(METRIC), IO, new ChunkCache(8, 1 << 20));
    }

    /** The source task on its own thread (as on a processor unit), serving snapshots. */
    final class Source implements AutoCloseable {
        final ExecutorService unit = Executors.newSingleThreadExecutor();
        final TaskPlan plan;
        final SnapshotServer server;
        final List<byte[]> log;
        final List<Object[]> results = new ArrayList<>();

        Source(List<byte[]> log, long bytesPerSecond) throws Exception {
            this.log = log;
            this.plan = unit.submit(() -> open(dir.resolve("source"))).get();
            this.server = SnapshotServer.start("127.0.0.1", 0, dir.resolve("snapshots"),
                    (task, into) -> task.equals(TASK)
                            ? CompletableFuture.supplyAsync(() -> plan.snapshot(into), unit)
                            : CompletableFuture.failedFuture(new SnapshotServer.NotHeldException(task)),
                    new TransferLimiter(bytesPerSecond));
        }

        void process(int from, int to) throws Exception {
            unit.submit(() -> {
                for (int i = from; i < to; i++) {
                    Object[] out = new Object[plan.resultWidth()];
                    plan.process(log.get(i), i, new Object[4], out);
                    results.add(out);
                    if (i % 100 == 0) {
                        plan.checkpoint();
                    }
                }
            }).get();
        }

        PeerCopy.Peer peer() {
            return new PeerCopy.Peer("n1", server.address(), server.token());
        }

        @Override
        public void close() throws java.util.concurrent.ExecutionException {
            server.close();
            try {
                unit.submit(plan::close).get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            unit.shutdown();
        }
    }

    /** The copy in {@code copy} goes on from its offset with the source's results. */
    void goesOnAsTheSource(Path copy, long offset, Source source) {
        TaskPlan copied = open(copy);
        try {
            assertEquals(offset, copied.nextOffset());
            for (int i = (int) offset; i < source.results.size(); i++) {
                Object[] out = new Object[copied.resultWidth()];
                copied.process(source.log.get(i), i, new Object[4], out);
                assertArrayEquals(source.results.get(i), out, "event " + i);
            }
        } finally {
            copied.close();
        }
    }

    @Test
    void aCopyOverHttpGoesOnAsTheSource() throws Exception {
        List<byte[]> log = log(20_000);
        try (Source source = new Source(log, 0)) {
            source.process(0, 15_000);
            RecoveryProgress progress = new RecoveryProgress();
            Path staging = dir.resolve("staging");
            SnapshotManifest manifest = new PeerCopy().fetch(source.peer(), TASK, staging, null, progress);
            source.process(15_000, 20_000); // the source goes on; the copy is as of the snapshot
            assertEquals(15_000, manifest.nextOffset());
            assertEquals(manifest.bytes(), progress.doneBytes());
            assertEquals(0, progress.reusedBytes());
            assertTrue(manifest.files().stream().anyMatch(f -> f.path().startsWith("reservoir/segment-")
                    && f.length() > 0), manifest.encode());
            goesOnAsTheSource(staging, 15_000, source);

            // a copy cut short and a damaged file: fetched again, only what is missing or wrong
            Path again = dir.resolve("again");
            new PeerCopy().fetch(source.peer(), TASK, again, null, new RecoveryProgress());
            SnapshotManifest.Entry largest = manifest.files().stream()
                    .max(java.util.Comparator.comparingLong(SnapshotManifest.Entry::length)).orElseThrow();
            Path cut = again.resolve(largest.path());
            byte[] bytes = Files.readAllBytes(cut);
            Files.write(cut, java.util.Arrays.copyOf(bytes, bytes.length / 2));
            RecoveryProgress resumed = new RecoveryProgress();
            SnapshotManifest second = new PeerCopy().fetch(source.peer(), TASK, again, null, resumed);
            assertTrue(resumed.reusedBytes() > 0, "kept what it had");
            goesOnAsTheSource(again, second.nextOffset(), source);

            // a stale copy: its unchanged files come from its own disk
            RecoveryProgress stale = new RecoveryProgress();
            new PeerCopy().fetch(source.peer(), TASK, dir.resolve("from-stale"), staging, stale);
            assertTrue(stale.reusedBytes() > 0, "a stale copy reuses its unchanged segments");
        }
    }

    @Test
    void withoutTheTokenOrTheTaskNothingIsCopied() throws Exception {
        try (Source source = new Source(log(100), 0)) {
            source.process(0, 100);
            PeerCopy.Peer wrong = new PeerCopy.Peer("n1", source.server.address(), "nope");
            IOException e = assertThrows(IOException.class,
                    () -> new PeerCopy().fetch(wrong, TASK, dir.resolve("x"), null, new RecoveryProgress()));
            assertTrue(e.getMessage().contains("401"), e.getMessage());
            IOException absent = assertThrows(IOException.class, () -> new PeerCopy().fetch(source.peer(),
                    new TaskId("coilgun.stream.p.card", 7), dir.resolve("y"), null, new RecoveryProgress()));
            assertTrue(absent.getMessage().contains("404"), absent.getMessage());
        }
    }
}
