package io.coilgun.cluster.unit;

import static io.coilgun.cluster.unit.TestTasks.TP0;
import static io.coilgun.cluster.unit.TestTasks.TP1;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Opening a task off the unit's thread: from this node's data, or after a copy from a peer, and its failures. */
class TaskOpenerTest {
    @TempDir
    Path dir;
    TestTasks host;
    final BlockingQueue<TaskOpener.Opened> delivered = new LinkedBlockingQueue<>();
    final BlockingQueue<Thread> openedOn = new LinkedBlockingQueue<>();
    TaskOpener opener;

    @BeforeEach
    void setUp() {
        host = new TestTasks(dir);
        opener = new TaskOpener("unit-0", host, null, opened -> {
            openedOn.add(Thread.currentThread());
            delivered.add(opened);
        });
    }

    @AfterEach
    void tearDown() {
        opener.close();
        for (TaskProcessor task : host.opened) {
            task.close();
        }
        host.close();
    }

    TaskOpener.Opened next() throws InterruptedException {
        TaskOpener.Opened opened = delivered.poll(30, TimeUnit.SECONDS);
        assertNotNull(opened, "delivered");
        return opened;
    }

    @Test
    void aTaskIsOpenedFromThisNodesDataOnTheOpenerThread() throws Exception {
        opener.open(TP0, TaskRole.ACTIVE, 0);
        TaskOpener.Opened opened = next();
        assertEquals(TP0, opened.partition());
        assertSame(host.opened.get(0), opened.task());
        assertNull(opened.failure());
        assertNull(opened.copied(), "no copy was to be made");
        assertEquals("coilgun-unit-0-opener", openedOn.take().getName());
    }

    @Test
    void aTaskCopiedFromAPeerIsOpenedOnceTheCopyIsInPlace() throws Exception {
        host.copyFirst = true;
        opener.open(TP0, TaskRole.REPLICA, 0);
        for (int i = 0; i < 300 && host.copyDone == null; i++) {
            Thread.sleep(10);
        }
        assertNotNull(host.copyDone, "the node was asked to copy it first");
        assertNull(delivered.poll(50, TimeUnit.MILLISECONDS), "not opened before the copy is in place");
        host.copyDone.accept(false); // the copy could not be made: opened from its own data and Kafka
        TaskOpener.Opened opened = next();
        assertNotNull(opened.task());
        assertEquals(Boolean.FALSE, opened.copied());
    }

    @Test
    void aTaskThatCannotBeOpenedIsDeliveredWithItsFailure() throws Exception {
        UnitHost failing = new TestTasks(dir) {
            @Override
            public TaskProcessor open(TaskId id, ProcessorUnit unit, BooleanSupplier wanted) {
                throw new IllegalStateException("disk gone");
            }

            @Override
            public boolean recoverFirst(TaskId id, TaskRole role, long logStart, ProcessorUnit unit,
                    Consumer<Boolean> whenDone) {
                throw new IllegalStateException("no peer link"); // opened anyway, from its own data
            }
        };
        try (TaskOpener failingOpener = new TaskOpener("unit-1", failing, null, delivered::add)) {
            failingOpener.open(TP0, TaskRole.ACTIVE, 0);
            TaskOpener.Opened opened = next();
            assertNull(opened.task());
            assertTrue(opened.failure().getMessage().contains("disk gone"));
        } finally {
            ((TestTasks) failing).close();
        }
    }

    @Test
    void aCopyDoneAfterTheUnitStoppedOpensNothing() throws Exception {
        host.copyFirst = true;
        opener.open(TP0, TaskRole.ACTIVE, 0);
        for (int i = 0; i < 300 && host.copyDone == null; i++) {
            Thread.sleep(10);
        }
        opener.close();
        host.copyDone.accept(true); // the copy stays on disk for the next start
        assertNull(delivered.poll(50, TimeUnit.MILLISECONDS));
    }

    @Test
    void aTaskTakenAwayBeforeItsTurnIsNotOpened() throws Exception {
        CountDownLatch busy = new CountDownLatch(1);
        TestTasks slow = new TestTasks(dir) {
            @Override
            public TaskProcessor open(TaskId id, ProcessorUnit unit, BooleanSupplier wanted) {
                try {
                    busy.await(); // the opener is busy with another task
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return super.open(id, unit, wanted);
            }
        };
        try (TaskOpener slowOpener = new TaskOpener("unit-1", slow, null, delivered::add)) {
            slowOpener.open(TP1, TaskRole.ACTIVE, 0);
            slowOpener.open(TP0, TaskRole.ACTIVE, 0);
            slowOpener.withdraw(TP0); // given elsewhere at the next rebalance
            busy.countDown();
            TaskOpener.Opened opened = next();
            assertEquals(TP1, opened.partition());
            assertTrue(slowOpener.take(opened));
            assertNull(delivered.poll(200, TimeUnit.MILLISECONDS), "nothing opened for the task taken away");
            assertEquals(1, slow.opened.size());
        } finally {
            for (TaskProcessor task : slow.opened) {
                task.close();
            }
            slow.close();
        }
    }

    @Test
    void onlyTheLatestOpenOfATaskGivenTwiceIsTaken() throws Exception {
        opener.open(TP0, TaskRole.ACTIVE, 0);
        TaskOpener.Opened earlier = next();
        opener.withdraw(TP0);
        opener.open(TP0, TaskRole.REPLICA, 0); // given again before the unit took the first
        earlier.task().close(); // (the unit closes it: its store is opened once)
        host.released(TaskId.of(TP0), null);
        TaskOpener.Opened latest = next();
        assertFalse(opener.take(earlier), "an earlier open: closed again");
        assertTrue(opener.take(latest));
        assertFalse(opener.take(latest), "taken once");
    }
}
