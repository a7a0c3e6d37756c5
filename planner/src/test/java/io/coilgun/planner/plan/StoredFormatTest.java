package io.coilgun.planner.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A task directory written by an earlier release ({@link StoredFormatFixture}, in the test resources) opens with
 * this one: it goes on after the offset it checkpointed, every card's next event sees every event that release
 * applied (SUM, COUNT, AVG over 30 days; MIN and MAX over a day), its ids are still duplicates; and after a
 * checkpoint and a reopen in this release's form, the same again.
 */
class StoredFormatTest {
    private static final Path WRITTEN_BEFORE_THE_CHANGELOG = Path.of("src/test/resources/stored-format/36013d0/task");

    @TempDir
    Path dir;

    @Test
    void aTaskWrittenBeforeTheChangelogOpensWithEverythingItApplied() throws IOException {
        Path task = dir.resolve("task");
        copy(WRITTEN_BEFORE_THE_CHANGELOG, task);
        int n = StoredFormatFixture.EVENTS;
        assertEquals(n, TaskPlan.checkpointedNextOffset(task), "the checkpointed offset");
        EventCodec codec = new EventCodec(TaskPlanOracleTest.STREAM);
        try (ReservoirIO io = ReservoirIO.defaults()) {
            long next = n;
            for (int reopen = 0; reopen < 2; reopen++) {
                TaskPlan plan = TaskPlan.open(task, TaskPlanOracleTest.STREAM, StoredFormatFixture.metrics(), io,
                        new ChunkCache(8, 1 << 20));
                Object[] results = new Object[7];
                assertEquals(TaskPlan.Outcome.DUPLICATE, plan.process(codec.encode(StoredFormatFixture.event(5), 0),
                        next, results), "an id that release accepted");
                for (int card = 0; card < StoredFormatFixture.CARDS; card++) {
                    long id = next++;
                    Object[] e = StoredFormatFixture.event(id);
                    e[2] = "c" + card;
                    assertEquals(TaskPlan.Outcome.APPLIED, plan.process(codec.encode(e, 0), id, results));
                    double total = (double) e[3];
                    long count = 1;
                    double low = (double) e[3];
                    double high = (double) e[3];
                    for (long i = 0; i < id; i++) {
                        if ((i < n ? i : i - n) % StoredFormatFixture.CARDS == card) {
                            double a = StoredFormatFixture.amount(i);
                            total += a;
                            count++;
                            low = Math.min(low, a);
                            high = Math.max(high, a);
                        }
                    }
                    String where = "reopen " + reopen + ", card c" + card;
                    assertEquals(total, (double) results[0], 1e-6, where + ": total");
                    assertEquals(count, ((Number) results[1]).longValue(), where + ": n");
                    assertEquals(total / count, (double) results[4], 1e-6, where + ": avg");
                    assertEquals(low, (double) results[5], where + ": low");
                    assertEquals(high, (double) results[6], where + ": high");
                }
                plan.checkpoint();
                plan.close();
            }
        }
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target);
                }
            }
        }
    }
}
