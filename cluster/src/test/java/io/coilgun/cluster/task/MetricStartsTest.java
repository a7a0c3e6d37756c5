package io.coilgun.cluster.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A metric starting at its marker: once, whatever the copy, and a marker that starts nothing here skipped. */
class MetricStartsTest {
    @TempDir
    Path dir;
    final ReservoirIO io = ReservoirIO.defaults();
    final MetricStarts starts = new MetricStarts(new TaskId("coilgun.stream.p.card", 0));
    TaskPlan plan;

    @BeforeEach
    void open() {
        plan = TaskPlan.open(dir, TaskProcessorTest.STREAM, List.of(), io, new ChunkCache(8, 1 << 20));
        starts.definitions(marker -> marker.equals("m@1") ? TaskProcessorTest.METRIC : null);
    }

    @AfterEach
    void close() {
        plan.close();
        io.close();
    }

    @Test
    void aMetricStartsRightAfterItsMarkerAndOnlyOnce() {
        assertNull(plan.operator("m"));
        assertTrue(starts.start(plan, 0, "m@1", starts.definition("m@1")), "the plan's live metrics changed");
        assertNotNull(plan.operator("m"));
        assertEquals(1, plan.nextOffset(), "the marker skipped and checkpointed at once");
        assertFalse(starts.start(plan, 1, "m@1", starts.definition("m@1")), "taken again (a replay): nothing");
        assertEquals(2, plan.nextOffset());
    }

    @Test
    void aMarkerOfAMetricNotHereStartsNothing() {
        assertNull(starts.definition("gone@3"));
        assertFalse(starts.start(plan, 0, "gone@3", null));
        assertEquals(1, plan.nextOffset());
        assertTrue(plan.metrics().isEmpty());
        assertTrue(starts.progress(plan).isEmpty(), "no backfill under way");
        assertNull(starts.filled("m"));
    }
}
