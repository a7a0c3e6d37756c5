package io.coilgun.cluster.ingest;

import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.TaskPlan;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Judges a statement's rows for lateness before any is published, so that a multi-row INSERT or a COPY with a
 * late row applies none (SPEC: under {@code reject}, "the statement fails and nothing changes").
 *
 * <p>For each partitioner topic, each row goes to the task {@code partitions[topic][row]}; the task's stream time
 * is simulated across the statement's rows in order, starting from {@link TaskClock#expected()}, exactly as the
 * task will judge them: a row is late if {@code t < S - lateness}, and an accepted row raises S to {@code max(S,
 * t)}. Run under the stream's ingest lock, and followed by the queueing of the rows for Kafka under the same lock
 * (sent in that order, {@link SendQueue}), the verdict holds when the tasks take the rows (see docs/architecture.md,
 * "Atomic statements").
 */
final class IngestGate {
    private IngestGate() {
    }

    /**
     * @param clocks per partitioner topic (in {@code stream.partitionBy()} order), the clocks of its tasks; null
     *     for a topic whose tasks this node does not know (not judged)
     * @param partitions per partitioner topic, the partition of each row
     * @throws LateEventException for the first late row (nothing was marked published)
     */
    static void check(StreamDef stream, List<Object[]> rows, TaskClock[][] clocks, int[][] partitions,
            String[] topics) {
        check(stream, rows, clocks, partitions, topics, null);
    }

    /**
     * As {@link #check(StreamDef, List, TaskClock[][], int[][], String[])}, leaving out the rows marked in
     * {@code excluded} (retries found to be duplicates: not published); the exception lists every late row, each with
     * the first topic it is late for (a late row does not raise the simulated stream time).
     */
    static void check(StreamDef stream, List<Object[]> rows, TaskClock[][] clocks, int[][] partitions,
            String[] topics, boolean[] excluded) {
        check(stream, rows, clocks, partitions, topics, excluded, new LateJudgement(clocks.length));
    }

    /**
     * As {@link #check(StreamDef, List, TaskClock[][], int[][], String[], boolean[])}, the simulated stream times
     * carried in {@code judged} from the statement's earlier rows (a big COPY judged batch after batch).
     */
    static void check(StreamDef stream, List<Object[]> rows, TaskClock[][] clocks, int[][] partitions,
            String[] topics, boolean[] excluded, LateJudgement judged) {
        if (stream.latePolicy() != LatePolicy.REJECT) {
            return;
        }
        LateEventException first = null;
        Map<Integer, LateEventException> lateRows = new TreeMap<>();
        long lateness = stream.latenessMicros();
        int timeIndex = stream.eventTimeIndex();
        for (int f = 0; f < clocks.length; f++) {
            TaskClock[] tasks = clocks[f];
            if (tasks == null) {
                continue;
            }
            long[] s = judged.times(f, tasks.length);
            boolean[] known = judged.known(f, tasks.length);
            for (int i = 0; i < rows.size(); i++) {
                int p = partitions[f][i];
                if (p >= tasks.length || excluded != null && excluded[i]) {
                    continue;
                }
                if (!known[p]) {
                    s[p] = tasks[p].expected();
                    known[p] = true;
                }
                long t = (Long) rows.get(i)[timeIndex];
                if (s[p] != TaskPlan.NO_TIME && t < s[p] - lateness) {
                    LateEventException late = new LateEventException(i, t, s[p], topics[f] + "-" + p, f);
                    if (first == null || i < first.row()) {
                        first = late;
                    }
                    lateRows.putIfAbsent(i, late);
                    continue; // the task will not take it: it does not raise S
                }
                s[p] = Math.max(s[p], t);
            }
        }
        if (first != null) {
            throw first.withLateRows(lateRows);
        }
    }

    /** After {@link #check} passed, under the same lock: the rows are about to be published to their tasks. */
    static void markPublished(StreamDef stream, List<Object[]> rows, TaskClock[][] clocks, int[][] partitions,
            boolean[] excluded) {
        if (stream.latePolicy() != LatePolicy.REJECT) {
            return;
        }
        int timeIndex = stream.eventTimeIndex();
        for (int f = 0; f < clocks.length; f++) {
            if (clocks[f] == null) {
                continue;
            }
            for (int i = 0; i < rows.size(); i++) {
                int p = partitions[f][i];
                if (p < clocks[f].length && (excluded == null || !excluded[i])) {
                    clocks[f][p].published((Long) rows.get(i)[timeIndex]);
                }
            }
        }
    }
}
