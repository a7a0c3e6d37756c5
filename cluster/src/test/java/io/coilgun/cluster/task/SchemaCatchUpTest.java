package io.coilgun.cluster.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** An event of a newer schema: the node's newest definition taken, or a wait, bounded. */
class SchemaCatchUpTest {
    static final StreamDef STREAM = TaskProcessorTest.STREAM;
    static final StreamDef ALTERED = STREAM.withColumn(new StreamColumn("note", ColumnType.VARCHAR, false));
    final List<StreamDef> taken = new ArrayList<>();
    final SchemaCatchUp schemas = new SchemaCatchUp(new TaskId("coilgun.stream.p.card", 0), taken::add);
    StreamDef deployed = STREAM;
    final ConsumerRecord<byte[], byte[]> newer = new ConsumerRecord<>("coilgun.stream.p.card", 0, 0, null,
            new EventCodec(ALTERED).encode(new Object[] {1L, TaskProcessorTest.T0, "c1", 10.0, "x"}, 0));

    {
        schemas.deployed(() -> deployed);
    }

    @Test
    void theNodesNewestDefinitionIsTakenWhenItKnowsTheSchema() {
        assertFalse(schemas.goOn(newer, 1_000), "this node has not applied the ALTER yet: wait");
        assertTrue(taken.isEmpty());
        deployed = ALTERED;
        assertTrue(schemas.goOn(newer, 2_000));
        assertEquals(List.of(ALTERED), taken);
    }

    @Test
    void theEventFailsAfterWaitingTooLong() {
        assertFalse(schemas.goOn(newer, 1_000));
        assertFalse(schemas.goOn(newer, 1_000 + SchemaCatchUp.WAIT_MS));
        assertTrue(schemas.goOn(newer, 1_001 + SchemaCatchUp.WAIT_MS), "the event goes on, and fails");
        assertTrue(taken.isEmpty());
        assertFalse(schemas.goOn(newer, 2_000 + SchemaCatchUp.WAIT_MS), "a new wait");
    }

    @Test
    void anEventTakenEndsTheWait() {
        assertFalse(schemas.goOn(newer, 1_000));
        schemas.caughtUp();
        assertFalse(schemas.goOn(newer, 1_001 + SchemaCatchUp.WAIT_MS), "its wait begins again");
    }
}
