package io.coilgun.cluster.ingest;

import java.util.Collections;
import java.util.Map;

/** A row of a statement is late for its task under {@code late_events = 'reject'}: nothing was published. */
public final class LateEventException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int row;
    private final long eventTime;
    private final long streamTime;
    private final String task;
    /** The partitioner topic (index in {@code partition_by} order) whose task the row is late for. */
    private final int topicIndex;
    /** Every late row of the statement, by row, this one first. */
    private Map<Integer, LateEventException> lateRows = Map.of();

    public LateEventException(int row, long eventTime, long streamTime, String task) {
        this(row, eventTime, streamTime, task, 0);
    }

    public LateEventException(int row, long eventTime, long streamTime, String task, int topicIndex) {
        super("row " + row + " is late for task " + task);
        this.topicIndex = topicIndex;
        this.row = row;
        this.eventTime = eventTime;
        this.streamTime = streamTime;
        this.task = task;
    }

    LateEventException withLateRows(Map<Integer, LateEventException> rows) {
        this.lateRows = Collections.unmodifiableMap(rows);
        return this;
    }

    /** Every late row of the statement by its 0-based index, each with its own details: the rows to probe. */
    public Map<Integer, LateEventException> lateRows() {
        return lateRows;
    }

    /** The index (in {@code partition_by} order) of the partitioner topic whose task the row is late for. */
    public int topicIndex() {
        return topicIndex;
    }

    /** The 0-based index of the first late row in the statement. */
    public int row() {
        return row;
    }

    /** The row's event time, microseconds. */
    public long eventTime() {
        return eventTime;
    }

    /** The task's stream time the row was judged against (including the statement's earlier rows). */
    public long streamTime() {
        return streamTime;
    }

    /** The task, {@code <topic>-<partition>}. */
    public String task() {
        return task;
    }
}
