package io.coilgun.cluster.unit;

import static io.coilgun.cluster.unit.TestTasks.TOPIC;
import static io.coilgun.cluster.unit.TestTasks.TP0;
import static io.coilgun.cluster.unit.TestTasks.TP1;
import static io.coilgun.cluster.unit.TestTasks.view;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.assign.UnitInfo;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.cluster.task.TaskState;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a unit does with its tasks when the assignment changes, with Kafka's MockConsumer for both consumers and real
 * task processors: a task given (opened, then read by the right consumer from its position), taken away (closed and
 * released to the node), and a replica moved to active (promoted in place, read by both consumers until the active
 * consumer's first record).
 */
class TaskReconcilerTest {
    @TempDir
    Path dir;
    TestTasks host;
    final MockConsumer<byte[], byte[]> active = new MockConsumer<>("earliest");
    final MockConsumer<byte[], byte[]> replica = new MockConsumer<>("earliest");
    final BlockingQueue<TaskOpener.Opened> delivered = new LinkedBlockingQueue<>();
    TaskOpener opener;
    TaskReconciler tasks;

    @BeforeEach
    void setUp() {
        host = new TestTasks(dir);
        opener = new TaskOpener("unit-0", host, null, delivered::add);
        tasks = new TaskReconciler("unit-0", host, null, active, replica, active, opener);
        active.subscribe(Set.of(TOPIC));
        active.updateBeginningOffsets(Map.of(TP0, 0L, TP1, 0L));
    }

    @AfterEach
    void tearDown() {
        opener.close();
        tasks.releaseAll();
        host.close();
    }

    /** The unit's thread takes what the opener delivered. */
    TaskProcessor takeOpened() throws InterruptedException {
        TaskOpener.Opened opened = delivered.poll(30, TimeUnit.SECONDS);
        assertNotNull(opened, "the opener delivered the task");
        tasks.opened(opened, true, Set.of(TOPIC));
        return opened.task();
    }

    @Test
    void aTaskGivenIsOpenedThenReadFromItsPosition() throws Exception {
        active.rebalance(List.of(TP0));
        tasks.reconcile(view(1, Map.of(TP0, List.of("m0"))), "m0", Set.of(TP0));
        assertTrue(tasks.isOpening(TP0));
        assertEquals(Set.of(TP0), active.paused(), "not read until its task is open");
        Map<TaskId, UnitInfo.Held> held = new HashMap<>();
        tasks.addHeld(held);
        assertEquals(TaskRole.STALE, held.get(TaskId.of(TP0)).role(), "on its way: the assignor counts it here");

        TaskProcessor task = takeOpened();
        assertEquals(task, tasks.task(TP0));
        assertEquals(TaskRole.ACTIVE, task.role());
        assertFalse(tasks.isOpening(TP0));
        assertTrue(active.paused().isEmpty(), "read now");
        assertEquals(0, active.position(TP0));
        assertFalse(tasks.replicating());
        assertEquals(0, tasks.progress(TP0));
        assertEquals(ProgressWaiters.GONE, tasks.progress(TP1));
    }

    @Test
    void aTaskTakenAwayIsClosedAndReleasedToTheNode() throws Exception {
        active.rebalance(List.of(TP0));
        tasks.reconcile(view(1, Map.of(TP0, List.of("m0"))), "m0", Set.of(TP0));
        TaskProcessor task = takeOpened();
        task.process(host.event(TP0, 0));
        assertEquals(Map.of(TP0, 1L), offsets(tasks.activePositions()));

        active.rebalance(List.of()); // Kafka revoked it: another unit leads it, this one keeps no copy
        tasks.reconcile(view(2, Map.of(TP0, List.of("m1"))), "m0", Set.of());
        assertNull(tasks.task(TP0));
        assertEquals(List.of(TaskId.of(TP0)), host.released);
        assertTrue(tasks.activePositions().isEmpty());
        TaskProcessor reopened = host.task(TP0); // closed with a checkpoint: its next holder here goes on from it
        assertEquals(1, reopened.nextOffset());
        reopened.close();
    }

    @Test
    void aReplicaMovedToActiveIsPromotedInPlaceAndHandedOver() throws Exception {
        active.rebalance(List.of());
        tasks.reconcile(view(1, Map.of(TP0, List.of("m1", "m0"))), "m0", Set.of());
        TaskProcessor task = takeOpened();
        assertEquals(TaskRole.REPLICA, task.role());
        assertTrue(tasks.readsFromReplica(TP0));
        assertEquals(Set.of(TP0), replica.assignment());
        assertEquals(0, replica.position(TP0));
        task.process(host.event(TP0, 0));
        task.process(host.event(TP0, 1));
        assertTrue(host.replies.isEmpty(), "a replica answers nothing");
        assertTrue(tasks.activePositions().isEmpty(), "a replica commits nothing");

        // the view makes it the leader before Kafka gives it the partition (the old leader gives it back first)
        tasks.reconcile(view(2, Map.of(TP0, List.of("m0", "m1"))), "m0", Set.of());
        assertEquals(TaskRole.ACTIVE, task.role(), "promoted without being opened again");
        assertEquals(1, host.opened.size());
        assertEquals(2, host.replies.size(), "no commit: the replies it kept are sent");
        assertTrue(tasks.leadsFromReplica(), "led from the replica consumer meanwhile");
        assertTrue(tasks.activePositions().isEmpty(), "not its partition's owner yet");

        active.rebalance(List.of(TP0)); // Kafka's next rebalance gives it the partition
        tasks.reconcile(view(3, Map.of(TP0, List.of("m0", "m1"))), "m0", Set.of(TP0));
        assertTrue(tasks.handingOver(TP0), "both consumers read it until the active one's first record");
        assertEquals(2, active.position(TP0), "the active consumer starts at the task's position");
        assertEquals(Map.of(TP0, 2L), offsets(tasks.activePositions()));

        tasks.taking(active, TP0, task, System.currentTimeMillis());
        assertFalse(tasks.handingOver(TP0));
        assertFalse(tasks.readsFromReplica(TP0));
        assertTrue(replica.assignment().isEmpty(), "the active consumer reads it alone now");
        assertEquals(List.of(), host.released);
    }

    @Test
    void aTaskOfADroppedStreamIsDiscarded() throws Exception {
        active.rebalance(List.of());
        tasks.reconcile(view(1, Map.of(TP1, List.of("m1", "m0"))), "m0", Set.of());
        takeOpened();
        tasks.discardTasksOf(Set.of(TOPIC));
        assertNull(tasks.task(TP1));
        assertEquals(List.of(TaskId.of(TP1)), host.released);
        assertTrue(replica.assignment().isEmpty());
    }

    @Test
    void aTaskOpenedAfterItWasGivenElsewhereIsClosedAgain() throws Exception {
        active.rebalance(List.of());
        tasks.reconcile(view(1, Map.of(TP0, List.of("m1", "m0"))), "m0", Set.of());
        TaskOpener.Opened opened = delivered.poll(30, TimeUnit.SECONDS);
        tasks.reconcile(view(2, Map.of(TP0, List.of("m1", "m2"))), "m0", Set.of()); // moved on meanwhile
        assertFalse(tasks.isOpening(TP0));
        tasks.opened(opened, true, Set.of(TOPIC));
        assertNull(tasks.task(TP0));
        assertEquals(List.of(TaskId.of(TP0)), host.released);
    }

    @Test
    void aTaskGivenAgainBeforeItsFirstOpenWasTakenRunsFromItsLatestOpen() throws Exception {
        active.rebalance(List.of());
        tasks.reconcile(view(1, Map.of(TP0, List.of("m1", "m0"))), "m0", Set.of());
        TaskOpener.Opened first = delivered.poll(30, TimeUnit.SECONDS);
        assertNotNull(first);
        tasks.reconcile(view(2, Map.of(TP0, List.of("m1", "m2"))), "m0", Set.of()); // taken away
        tasks.reconcile(view(3, Map.of(TP0, List.of("m1", "m0"))), "m0", Set.of()); // and given back
        assertTrue(tasks.isOpening(TP0));
        tasks.opened(first, true, Set.of(TOPIC)); // the unit takes the first open only now
        assertNull(tasks.task(TP0), "an earlier open: closed again");
        assertTrue(tasks.isOpening(TP0), "the latest open is still awaited");
        assertEquals(List.of(TaskId.of(TP0)), host.released);
        TaskProcessor task = takeOpened();
        assertSame(task, tasks.task(TP0));
        assertEquals(TaskRole.REPLICA, task.role());
        assertFalse(tasks.isOpening(TP0));
    }

    @Test
    void aTaskWhoseHistoryKafkaNoLongerHoldsIsStoppedNotRun() throws Exception {
        active.updateBeginningOffsets(Map.of(TP0, 10L)); // retention dropped offsets 0..9, which this copy lacks
        active.rebalance(List.of(TP0));
        tasks.reconcile(view(1, Map.of(TP0, List.of("m0"))), "m0", Set.of(TP0));
        TaskProcessor task = takeOpened();
        assertEquals(TaskState.FAILED, task.state());
        assertTrue(task.lastError().contains("history is lost"), task.lastError());
        assertEquals(Set.of(TP0), active.paused(), "its records stay in Kafka");
        assertEquals(ProgressWaiters.GONE, tasks.progress(TP0), "nobody waits for it");
    }

    @Test
    void aRolledBackTaskIsReadAgainFromItsPositionAndAStoppedOneNoMore() throws Exception {
        active.rebalance(List.of(TP0));
        tasks.reconcile(view(1, Map.of(TP0, List.of("m0"))), "m0", Set.of(TP0));
        TaskProcessor task = takeOpened();
        task.process(host.event(TP0, 0));
        active.seek(TP0, 5); // the consumer read ahead
        tasks.rewind(active, TP0, task);
        assertEquals(1, active.position(TP0));
        task.stopFor("a sick disk");
        tasks.rewind(active, TP0, task);
        assertEquals(Set.of(TP0), active.paused());
    }

    static Map<TopicPartition, Long> offsets(Map<TopicPartition, OffsetAndMetadata> m) {
        Map<TopicPartition, Long> out = new HashMap<>();
        m.forEach((tp, o) -> out.put(tp, o.offset()));
        return out;
    }
}
