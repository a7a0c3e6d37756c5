package io.coilgun.cluster.unit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.task.TaskProcessor;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A unit's background slices: the node's slot, its share of time, and a unit with nothing to fill asking nothing. */
class BackgroundSlicesTest {
    @TempDir
    Path dir;
    final Semaphore slots = new Semaphore(1);
    final List<long[]> ran = new ArrayList<>();
    volatile long notBefore = Long.MIN_VALUE;
    TestTasks host;
    final List<TaskProcessor> tasks = new ArrayList<>();
    BackgroundSlices slices;

    @BeforeEach
    void setUp() {
        host = new TestTasks(dir) {
            @Override
            public Semaphore backgroundSlots() {
                return slots;
            }

            @Override
            public long backgroundNotBefore() {
                return notBefore;
            }

            @Override
            public void backgroundRan(long began, long ended) {
                ran.add(new long[] {began, ended});
            }
        };
        CommitPolicy commits = new CommitPolicy("unit-0", new MockConsumer<>("earliest"), Map::of,
                tp -> null, host.meters(), System.nanoTime());
        slices = new BackgroundSlices(host, tasks, commits);
    }

    @AfterEach
    void tearDown() {
        for (TaskProcessor task : tasks) {
            task.close();
        }
        host.close();
    }

    @Test
    void tasksWithoutBackfillsHaveNoBackgroundWork() {
        assertFalse(slices.pending());
        tasks.add(host.task(TestTasks.TP0));
        assertFalse(slices.pending());
    }

    @Test
    void aSliceHoldsTheNodesSlotUntilItRan() {
        notBefore = System.nanoTime();
        assertTrue(slices.trySlot());
        assertEquals(0, slots.availablePermits(), "another unit of the node waits");
        slices.run(true);
        assertEquals(1, slots.availablePermits());
        assertEquals(1, ran.size(), "the node accounts the slice to its share");
    }

    @Test
    void noSliceBeforeTheNodesShareAllowsOrWhileAnotherUnitRunsOne() {
        notBefore = System.nanoTime() + 60_000_000_000L;
        assertFalse(slices.trySlot(), "not before the share allows");
        assertEquals(1, slots.availablePermits());
        notBefore = System.nanoTime();
        slots.acquireUninterruptibly();
        assertFalse(slices.trySlot(), "another unit holds the slot");
        slots.release();
    }
}
