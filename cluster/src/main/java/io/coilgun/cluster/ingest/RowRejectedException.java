package io.coilgun.cluster.ingest;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.util.List;

/**
 * A task refused a row of a statement that was published (late after all, NULL event time, or the task failed on
 * it): the statement fails with the row's error; its other rows may have been applied (docs/architecture.md, "Atomic
 * statements", the rare cases).
 */
public final class RowRejectedException extends CoilgunException {
    private static final long serialVersionUID = 1L;

    private final int row;
    private final int rows;
    private List<Integer> applied = List.of();

    RowRejectedException(SqlState state, String message, int row, int rows) {
        super(state, message);
        this.row = row;
        this.rows = rows;
    }

    /** The 0-based index of the row in the statement. */
    public int row() {
        return row;
    }

    /** The same error, knowing which of the statement's other rows were applied (0-based). */
    RowRejectedException withApplied(List<Integer> appliedRows) {
        this.applied = List.copyOf(appliedRows);
        return this;
    }

    /** The 0-based indexes of the statement's rows that were applied nonetheless. */
    public List<Integer> applied() {
        return applied;
    }

    /** How many rows the statement has. */
    public int rows() {
        return rows;
    }
}
