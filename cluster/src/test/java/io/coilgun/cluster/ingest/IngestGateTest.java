package io.coilgun.cluster.ingest;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lateness pre-check simulates each task's stream time across a statement's rows, as the task will judge them. */
class IngestGateTest {
    static final long S = Durations.SECOND;

    static StreamDef stream(LatePolicy policy) {
        return new StreamDef("payments", List.of(new StreamColumn("ts", ColumnType.TIMESTAMP, false),
                new StreamColumn("card", ColumnType.VARCHAR, false)), 0, -1, List.of("card"), 2, 10 * S, policy, "");
    }

    static List<Object[]> rows(long... times) {
        List<Object[]> rows = new ArrayList<>();
        for (long t : times) {
            rows.add(new Object[] {t, "c"});
        }
        return rows;
    }

    static TaskClock[][] clocks(long streamTime0, long streamTime1) {
        TaskClock[] c = {new TaskClock(), new TaskClock()};
        c[0].streamTime(streamTime0);
        c[1].streamTime(streamTime1);
        return new TaskClock[][] {c};
    }

    static int[][] partitions(int... p) {
        return new int[][] {p};
    }

    static final String[] TOPICS = {"coilgun.stream.payments.card"};

    @Test
    void aLateRowAgainstTheTasksStreamTime() {
        StreamDef s = stream(LatePolicy.REJECT);
        TaskClock[][] c = clocks(100 * S, 0);
        assertDoesNotThrow(() -> IngestGate.check(s, rows(90 * S, 95 * S), c, partitions(0, 0), TOPICS),
                "exactly S - lateness is on time");
        LateEventException e = assertThrows(LateEventException.class,
                () -> IngestGate.check(s, rows(100 * S, 95 * S, 89 * S), c, partitions(0, 0, 0), TOPICS));
        assertEquals(2, e.row());
        assertEquals(89 * S, e.eventTime());
        assertEquals(100 * S, e.streamTime());
        assertEquals("coilgun.stream.payments.card-0", e.task());
        assertDoesNotThrow(() -> IngestGate.check(s, rows(100 * S, 95 * S, 89 * S), c, partitions(0, 0, 1), TOPICS),
                "the other task's stream time is lower");
    }

    @Test
    void earlierRowsOfTheStatementRaiseTheStreamTime() {
        StreamDef s = stream(LatePolicy.REJECT);
        TaskClock[][] c = clocks(100 * S, 100 * S);
        LateEventException e = assertThrows(LateEventException.class,
                () -> IngestGate.check(s, rows(100 * S, 200 * S, 150 * S), c, partitions(1, 1, 1), TOPICS));
        assertEquals(2, e.row(), "row 2 raised S to 200 s");
        assertEquals(200 * S, e.streamTime());
        assertDoesNotThrow(() -> IngestGate.check(s, rows(100 * S, 200 * S, 150 * S), c, partitions(1, 0, 1), TOPICS),
                "row 2 went to the other task");
        assertEquals(100 * S, c[0][0].expected(), "a check marks nothing");
    }

    @Test
    void publishedRowsCountUntilTheTaskTakesThem() {
        StreamDef s = stream(LatePolicy.REJECT);
        TaskClock[][] c = clocks(100 * S, 100 * S);
        IngestGate.markPublished(s, rows(300 * S), c, partitions(0), null);
        assertEquals(300 * S, c[0][0].expected());
        assertThrows(LateEventException.class, () -> IngestGate.check(s, rows(250 * S), c, partitions(0), TOPICS),
                "a row published before, not yet taken by the task, counts");
        c[0][0].streamTime(300 * S);
        assertEquals(300 * S, c[0][0].expected());
    }

    @Test
    void aNewTaskAndOtherPoliciesJudgeNothing() {
        TaskClock[][] fresh = {{new TaskClock(), new TaskClock()}};
        assertDoesNotThrow(() -> IngestGate.check(stream(LatePolicy.REJECT), rows(500 * S, 1 * S, 490 * S), fresh,
                partitions(0, 1, 0), TOPICS));
        assertThrows(LateEventException.class, () -> IngestGate.check(stream(LatePolicy.REJECT),
                rows(500 * S, 1 * S), fresh, partitions(0, 0), TOPICS), "the first row sets S of a new task");
        for (LatePolicy p : new LatePolicy[] {LatePolicy.CLAMP, LatePolicy.DROP}) {
            assertDoesNotThrow(() -> IngestGate.check(stream(p), rows(1 * S), clocks(100 * S, 100 * S), partitions(0),
                    TOPICS));
        }
        assertDoesNotThrow(() -> IngestGate.check(stream(LatePolicy.REJECT), rows(1 * S), new TaskClock[][] {null},
                partitions(0), TOPICS), "tasks this node does not run are not judged");
    }

    @Test
    void partitionIsKafkasDefaultPartitioner() {
        byte[] key = {1, 'c', '1'};
        assertEquals(org.apache.kafka.common.utils.Utils.toPositive(org.apache.kafka.common.utils.Utils.murmur2(key))
                % 4, EventPublisher.partition(key, 4));
    }
}
