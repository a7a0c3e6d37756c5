package io.coilgun.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.feed.ResultFeed;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.cluster.unit.BackgroundBudget;
import io.coilgun.cluster.unit.ProcessorUnit;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.storage.reservoir.ChunkCache;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeUnitHostTest {
    @TempDir
    Path dir;

    final List<String> markers = new CopyOnWriteArrayList<>();

    NodeUnitHost host(NodeFixture node, BackgroundBudget budget) {
        return new NodeUnitHost(node.config, node.deployments, node.directories, node.tasks, node.recovery,
                (topic, partition, marker) -> markers.add(topic + "-" + partition + " " + marker), reply -> { },
                (forward, callback) -> { },
                new ResultFeed(), node.io, new SimpleMeterRegistry(), budget, null, io.coilgun.cluster.sink.SinkRegistry.none());
    }

    /** A unit that is never started: its consumers are made but never poll (no Kafka needed). */
    static ProcessorUnit unit(int index, NodeUnitHost host) {
        return new ProcessorUnit(index, "127.0.0.1:1", "test-group", 6000, host, new ChunkCache(8, 1 << 20));
    }

    @Test
    void closedCopiesOfDeployedStreamsAreStale() throws Exception {
        try (NodeFixture node = new NodeFixture(dir.resolve("n1")); BackgroundBudget budget = budget()) {
            node.closedCopy(NodeFixture.T0_TASK, 100);
            Files.createDirectories(node.directories.of(new TaskId("coilgun.stream.q.card", 0))); // not deployed
            NodeUnitHost host = host(node, budget);
            assertEquals(Map.of(NodeFixture.T0_TASK, TaskRole.STALE), Map.of(NodeFixture.T0_TASK,
                    host.staleTasks().get(NodeFixture.T0_TASK).role()));
            assertEquals(1, host.staleTasks().size());
            assertEquals(2, host.backgroundSlots().availablePermits() + 1, "two units: one slot, one left to live work");
            assertEquals(1, host.copies(NodeFixture.TOPIC));
        }
    }

    @Test
    void aTaskOpensFromItsDataAndStartsTheMetricsItLacksAtAMarker() throws Exception {
        try (NodeFixture node = new NodeFixture(dir.resolve("n1")); BackgroundBudget budget = budget()) {
            node.closedCopy(NodeFixture.T0_TASK, 300);
            NodeUnitHost host = host(node, budget);
            ProcessorUnit unit = unit(0, host);
            TaskProcessor task = host.open(NodeFixture.T0_TASK, unit, () -> true);
            assertEquals(300, task.nextOffset(), "from its checkpoint");
            assertSame(unit, node.tasks.unitOf(NodeFixture.T0_TASK));
            assertEquals(Map.of(), host.staleTasks(), "held now: not stale");
            assertEquals(List.of(), markers, "its metric started in its data: no marker");
            task.close();
            host.released(NodeFixture.T0_TASK, unit);
            assertFalse(node.tasks.holds(NodeFixture.T0_TASK));

            MetricDef m2 = new MetricDef("m2", "p", List.of(new AggregationDef(AggregationKind.COUNT_STAR, -1, "n",
                    ColumnType.BIGINT)), List.of(2), "card", WindowSpec.sliding(Durations.MINUTE), "");
            node.deployments.addMetric(NodeFixture.TOPIC, m2, 42);
            TaskProcessor again = host.open(NodeFixture.T0_TASK, unit, () -> true);
            assertEquals(List.of(NodeFixture.TOPIC + "-0 m2@42"), markers, "a marker of its own, at the partition's end");
            again.close();
            host.released(NodeFixture.T0_TASK, unit);

            assertNull(host.open(new TaskId("coilgun.stream.q.card", 0), unit, () -> true),
                    "a stream not deployed here");
        }
    }

    @Test
    void aUnitOpensATaskOnceTheOtherUnitLetGoOfIt() throws Exception {
        try (NodeFixture node = new NodeFixture(dir.resolve("n1")); BackgroundBudget budget = budget()) {
            NodeUnitHost host = host(node, budget);
            ProcessorUnit first = unit(0, host);
            ProcessorUnit second = unit(1, host);
            TaskProcessor held = host.open(NodeFixture.T1_TASK, first, () -> true);
            CompletableFuture<TaskProcessor> taking = waitingOpen(host, second, () -> true,
                    "the first unit still holds it");
            held.close();
            host.released(NodeFixture.T1_TASK, first);
            TaskProcessor moved = taking.get(10, TimeUnit.SECONDS);
            assertSame(second, node.tasks.unitOf(NodeFixture.T1_TASK));
            moved.close();
            host.released(NodeFixture.T1_TASK, second);
        }
    }

    /** Opens T1 for {@code unit} on another thread, and checks that the open is still waiting 200 ms later. */
    static CompletableFuture<TaskProcessor> waitingOpen(NodeUnitHost host, ProcessorUnit unit, BooleanSupplier wanted,
            String why) throws InterruptedException {
        CompletableFuture<TaskProcessor> opening = CompletableFuture.supplyAsync(
                () -> host.open(NodeFixture.T1_TASK, unit, wanted));
        Thread.sleep(200);
        assertFalse(opening.isDone(), why);
        return opening;
    }

    static BackgroundBudget budget() {
        return BackgroundBudget.fromSystemProperties();
    }

    @Test
    void anOpenWaitingForTheOtherUnitGivesUpWhenItsTaskIsGivenElsewhere() throws Exception {
        try (NodeFixture node = new NodeFixture(dir.resolve("n1")); BackgroundBudget budget = budget()) {
            NodeUnitHost host = host(node, budget);
            ProcessorUnit first = unit(0, host);
            ProcessorUnit second = unit(1, host);
            TaskProcessor held = host.open(NodeFixture.T1_TASK, first, () -> true);
            AtomicBoolean wanted = new AtomicBoolean(true);
            CompletableFuture<TaskProcessor> taking = waitingOpen(host, second, wanted::get,
                    "the first unit still holds it");
            wanted.set(false);
            host.openWithdrawn(NodeFixture.T1_TASK);
            assertNull(taking.get(5, TimeUnit.SECONDS), "not opened, not waited for (30 s) any more");
            assertSame(first, node.tasks.unitOf(NodeFixture.T1_TASK));
            held.close();
            host.released(NodeFixture.T1_TASK, first);
        }
    }

    @Test
    void aUnitOpensATaskAgainOnlyOnceItClosedItsEarlierCopy() throws Exception {
        try (NodeFixture node = new NodeFixture(dir.resolve("n1")); BackgroundBudget budget = budget()) {
            NodeUnitHost host = host(node, budget);
            ProcessorUnit unit = unit(0, host);
            TaskProcessor earlier = host.open(NodeFixture.T1_TASK, unit, () -> true);
            CompletableFuture<TaskProcessor> again = waitingOpen(host, unit, () -> true, "its store is open once");
            earlier.close();
            host.released(NodeFixture.T1_TASK, unit);
            TaskProcessor reopened = again.get(10, TimeUnit.SECONDS);
            assertSame(unit, node.tasks.unitOf(NodeFixture.T1_TASK));
            reopened.close();
            host.released(NodeFixture.T1_TASK, unit);
        }
    }
}
