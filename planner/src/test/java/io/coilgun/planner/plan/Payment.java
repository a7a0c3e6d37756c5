package io.coilgun.planner.plan;

import io.coilgun.planner.oracle.SpecOracle;
import io.coilgun.planner.oracle.Window;

/**
 * A payment of the oracle tests' stream ({@link TaskPlanOracleTest#STREAM}: id, ts, card_id, amount, qty), as the
 * task plan decodes it and as the shared oracle reads it.
 */
record Payment(long id, long time, String card, Double amount, long qty) {

    /** The shared oracle of a window over payments, grouped by card. */
    static SpecOracle<Payment> oracle(Window.Kind kind, long size, long delay) {
        return new SpecOracle<>(new Window(kind, size, delay), Payment::time, Payment::card);
    }

    /** Its columns, in the stream's order: what the stream's codec encodes. */
    Object[] row() {
        return new Object[] {id, time, card, amount, qty};
    }
}
