package io.coilgun.planner.plan;

/**
 * Faults a test can inject into a task, through the event itself, so they are deterministic (a replay meets them
 * again). Off unless the JVM runs with {@code -Dcoilgun.testFaults=true} (the integration tests do); when off, the
 * one check in {@link TaskPlan#process} is a constant the JIT removes.
 *
 * <p>A text column of the event holding
 * <ul>
 *   <li>{@code coilgun:fail} makes the task throw while its metrics take the event (after the first metric took
 *       it and the reservoir holds it: the task's state is half changed, as with a bug in an aggregation);</li>
 *   <li>{@code coilgun:fail-once:<token>} the same, but only the first time a task of this JVM meets the token
 *       (a passing fault: taken again, the event applies);</li>
 *   <li>{@code coilgun:sleep:<ms>} makes the task's thread sleep that long before applying the event (a slow or
 *       stuck task, for statement timeouts and cancels);</li>
 *   <li>{@code coilgun:slow-backfill:<ms>} makes a backfill sleep that long when it applies the event (a long
 *       backfill, to restart a node in the middle of one); live processing ignores it.</li>
 * </ul>
 */
public final class TestFaults {
    /** Whether faults are armed in this JVM. */
    public static final boolean ENABLED = Boolean.getBoolean("coilgun.testFaults");

    static final String FAIL = "coilgun:fail";
    static final String FAIL_ONCE = "coilgun:fail-once:";
    static final String SLEEP = "coilgun:sleep:";
    /** The fail-once tokens met so far. */
    private static final java.util.Set<String> MET = java.util.concurrent.ConcurrentHashMap.newKeySet();
    static final String SLOW_BACKFILL = "coilgun:slow-backfill:";

    private TestFaults() {
    }

    /** Sleeps if the event asks for it. */
    static void beforeApply(Object[] values) {
        for (Object v : values) {
            if (v instanceof String s && s.startsWith(SLEEP)) {
                try {
                    Thread.sleep(Long.parseLong(s.substring(SLEEP.length())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Sleeps if the event asks a backfill to. */
    static void whileBackfilling(Object[] values) {
        for (Object v : values) {
            if (v instanceof String s && s.startsWith(SLOW_BACKFILL)) {
                try {
                    Thread.sleep(Long.parseLong(s.substring(SLOW_BACKFILL.length())));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    /** Throws if the event asks for it. */
    static void whileAggregating(Object[] values) {
        for (Object v : values) {
            if (FAIL.equals(v) || v instanceof String s && s.startsWith(FAIL_ONCE) && MET.add(s)) {
                throw new IllegalStateException("injected test fault (an event with '" + v + "')");
            }
        }
    }
}
