package io.coilgun.cluster.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A stream's tasks (one per partitioner topic and partition) and where they are placed. */
class TaskTopologyTest {
    static final StreamDef STREAM = new StreamDef("p", List.of(new StreamColumn("ts", ColumnType.TIMESTAMP, false),
            new StreamColumn("card", ColumnType.VARCHAR, false), new StreamColumn("merchant", ColumnType.VARCHAR,
            false)), 0, -1, List.of("card", "merchant"), 3, Durations.SECOND, LatePolicy.REJECT, "");

    @Test
    void everyPartitionerTopicAndPartitionIsOneTask() {
        List<TaskId> all = TaskId.all(STREAM);
        assertEquals(List.of(new TaskId("coilgun.stream.p.card", 0), new TaskId("coilgun.stream.p.card", 1),
                new TaskId("coilgun.stream.p.card", 2), new TaskId("coilgun.stream.p.merchant", 0),
                new TaskId("coilgun.stream.p.merchant", 1), new TaskId("coilgun.stream.p.merchant", 2)), all);
        assertEquals(all.subList(3, 6), TaskId.allOf(STREAM, "merchant"));
        for (TaskId id : all) {
            assertEquals(id, TaskId.parse(id.toString()));
            assertEquals(id, TaskId.of(id.topicPartition()));
        }
    }

    @Test
    void aSingleNodeRunsEveryTaskOnAStableUnit() {
        TaskPlacement placement = new TaskPlacement(2);
        Set<Integer> units = new HashSet<>();
        for (TaskId id : TaskId.all(STREAM)) {
            assertTrue(placement.runsHere(id));
            int unit = placement.unit(id);
            assertTrue(unit >= 0 && unit < 2);
            assertEquals(unit, new TaskPlacement(2).unit(new TaskId(id.topic(), id.partition())));
            units.add(unit);
        }
        assertEquals(Set.of(0, 1), units, "six tasks spread over both units");
    }
}
