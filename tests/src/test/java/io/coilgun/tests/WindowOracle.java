package io.coilgun.tests;

import io.coilgun.planner.oracle.SpecOracle;
import io.coilgun.planner.oracle.Window;
import io.coilgun.planner.oracle.WindowEvents;

/**
 * The shared oracle of docs/sql.md's window semantics ({@link SpecOracle}, from the planner's test-jar) over the
 * payments stream of these tests ({@link WalkingSkeletonIT#CREATE_STREAM}): events grouped by card, each with its
 * amount. It does not judge lateness: the tests that use it send their events within it.
 */
final class WindowOracle {
    /** The window kinds, as the tests name them. */
    enum Kind { SLIDING, TUMBLING, INFINITE }

    /** A payment as the oracle reads it. */
    record Payment(String card, long time, double amount) {
    }

    private final SpecOracle<Payment> oracle;

    WindowOracle(Kind kind, long size, long delay) {
        oracle = new SpecOracle<>(new Window(Window.Kind.valueOf(kind.name()), size, delay), Payment::time,
                Payment::card);
    }

    /** Accepts the payment; returns its card's window, whose aggregations the payment's RETURNING row reports. */
    WindowEvents<Payment> accept(String card, long time, double amount) {
        return oracle.accept(new Payment(card, time, amount));
    }
}
