package io.coilgun.cluster.ingest;

/** A row of a statement is late for its task under {@code late_events = 'reject'}: nothing was published. */
public final class LateEventException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int row;
    private final long eventTime;
    private final long streamTime;
    private final String task;

    public LateEventException(int row, long eventTime, long streamTime, String task) {
        super("row " + row + " is late for task " + task);
        this.row = row;
        this.eventTime = eventTime;
        this.streamTime = streamTime;
        this.task = task;
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
