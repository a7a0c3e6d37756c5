package io.coilgun.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.assign.UnitInfo;
import io.coilgun.cluster.directory.NodeStatus;
import io.coilgun.cluster.directory.ProcessIdSlot;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.cluster.unit.ProcessorUnit;
import io.coilgun.cluster.unit.UnitHost;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StatusPublisherTest {
    @TempDir
    Path dir;

    /** A host whose only task is T0's closed copy on disk (no unit holds it). */
    static UnitHost staleT0() {
        return new UnitHost() {
            @Override
            public String nodeId() {
                return "n1";
            }

            @Override
            public TaskProcessor open(TaskId id, ProcessorUnit u, BooleanSupplier wanted) {
                return null;
            }

            @Override
            public boolean recoverFirst(TaskId id, TaskRole role, long logStart,
                    ProcessorUnit unit, Consumer<Boolean> whenDone) {
                return false;
            }

            @Override
            public void released(TaskId id, ProcessorUnit unit) {
            }

            @Override
            public int copies(String topic) {
                return 1;
            }

            @Override
            public Map<TaskId, UnitInfo.Held> staleTasks() {
                return Map.of(NodeFixture.T0_TASK, new UnitInfo.Held(TaskRole.STALE, -1));
            }

            @Override
            public void placed(ClusterView view) {
            }

            @Override
            public MeterRegistry meters() {
                return new SimpleMeterRegistry();
            }
        };
    }

    @Test
    void theStatusSaysHowTheNodeIsReachedAndWhatItHas() {
        try (NodeFixture node = new NodeFixture(dir.resolve("n1"))) {
            node.closedCopy(NodeFixture.T0_TASK, 300);
            StatusPublisher status = new StatusPublisher(node.config, node.directory, node.tasks, staleT0(),
                    node.directories, node.recovery, new ProcessIdSlot("n1"));
            try {
                status.advertise("127.0.0.1:5433", "1.2.3");
                ProducerRecord<byte[], byte[]> sent = node.producer.history().get(node.producer.history().size() - 1);
                assertEquals(Topics.NODES, sent.topic());
                NodeStatus s = NodeStatus.decode(sent.value());
                assertEquals("n1", s.node());
                assertEquals("127.0.0.1:5433", s.pgwire());
                assertEquals("1.2.3", s.version());
                assertEquals(-1, s.catalogApplied(), "no catalog applied yet");
                assertEquals(node.recovery.address(), s.peer(), "where peers copy from");
                assertEquals(1, s.tasks().size(), "" + s.tasks());
                NodeStatus.TaskCopy stale = s.tasks().get(0);
                assertEquals(NodeFixture.T0_TASK.toString(), stale.task());
                assertEquals("stale", stale.role());
                assertEquals(300, stale.nextOffset(), "the closed copy's checkpoint: what a peer would copy");
            } finally {
                status.close();
            }
        }
    }

    @Test
    void catalogProgressIsToldAtOnceAndOnlyForward() throws Exception {
        try (NodeFixture node = new NodeFixture(dir.resolve("n1"))) {
            StatusPublisher status = new StatusPublisher(node.config, node.directory, node.tasks, staleT0(),
                    node.directories, node.recovery, new ProcessIdSlot("n1"));
            try {
                status.catalogApplied(7);
                long deadline = System.currentTimeMillis() + 10_000;
                while (node.producer.history().isEmpty() && System.currentTimeMillis() < deadline) {
                    Thread.sleep(10); // published on the status thread
                }
                int published = node.producer.history().size();
                assertTrue(published >= 1);
                assertEquals(7, NodeStatus.decode(node.producer.history().get(published - 1).value()).catalogApplied());
                status.catalogApplied(5); // older: nothing new to tell
                status.advertise("a", "v");
                assertEquals(7, NodeStatus.decode(node.producer.history().get(node.producer.history().size() - 1)
                        .value()).catalogApplied());
            } finally {
                status.close();
            }
        }
    }
}
