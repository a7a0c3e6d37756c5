package io.coilgun.cluster.unit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Locale;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells where a live event's rare long wait came from, without a per-event cost: a daemon thread looks at the node's
 * processor units every {@link #TICK_MS} ms.
 * <ul>
 *   <li>A unit busy for over {@link #STALL_NS} since its last poll (a step of a task, a background slice, a
 *       checkpoint: live events behind it wait) is a <em>unit stall</em>. The watchdog takes the unit thread's stack
 *       once while it lasts and logs it, with how long the step took, when it ends.</li>
 *   <li>The watchdog itself waking over {@link #STALL_NS} late is a <em>node pause</em>: the whole process stopped
 *       (a GC or another safepoint) or got no CPU.</li>
 * </ul>
 * Both are counted ({@code coilgun.unit.stalls}, {@code coilgun.node.pauses}) and logged at WARN, at most one line per
 * unit per second. The units only write a volatile field per poll.
 */
public final class StallWatchdog implements Runnable {
    private static final Logger LOG = LoggerFactory.getLogger(StallWatchdog.class);
    static final long TICK_MS = 10;
    static final long STALL_NS = Long.getLong("coilgun.stallMs", 50) * 1_000_000L;
    private static final long LOG_EVERY_NS = 1_000_000_000L;
    private static final int FRAMES = 14;

    /**
     * What the watchdog looks at: a processor unit, its thread, and when it last came back from a poll
     * (System.nanoTime; 0 while it waits in one).
     */
    record Watched(String name, LongSupplier busySince, Thread thread) {
    }

    private final List<Watched> units;
    private final Counter unitStalls;
    private final Counter nodePauses;
    /** Per unit: the busySince of the stall being watched (0: none), its stack, when one was last logged. */
    private final long[] watched;
    private final StackTraceElement[][] stacks;
    private final long[] lastLogged;
    private volatile boolean running = true;
    private volatile String lastStall;
    private final Thread thread;

    private StallWatchdog(List<Watched> units, MeterRegistry meters, String node) {
        this.units = units;
        this.unitStalls = Counter.builder("coilgun.unit.stalls").description("Steps of a processor unit over "
                + STALL_NS / 1_000_000 + " ms between two polls (live events waited behind them)").register(meters);
        this.nodePauses = Counter.builder("coilgun.node.pauses").description("Times the whole node stopped for over "
                + STALL_NS / 1_000_000 + " ms (a GC or safepoint, or no CPU for the process)").register(meters);
        this.watched = new long[units.size()];
        this.stacks = new StackTraceElement[units.size()][];
        this.lastLogged = new long[units.size()];
        this.thread = new Thread(this, "coilgun-" + node + "-watchdog");
        thread.setDaemon(true);
    }

    /** Starts watching the node's processor units (their number is fixed for the node's life). */
    public static StallWatchdog start(List<ProcessorUnit> units, MeterRegistry meters, String node) {
        return watch(units.stream().map(u -> new Watched(u.name(), u::busySince, u.thread())).toList(), meters, node);
    }

    static StallWatchdog watch(List<Watched> units, MeterRegistry meters, String node) {
        StallWatchdog w = new StallWatchdog(List.copyOf(units), meters, node);
        w.thread.start();
        return w;
    }

    @Override
    public void run() {
        long lastPauseLog = System.nanoTime() - LOG_EVERY_NS;
        while (running) {
            long before = System.nanoTime();
            try {
                Thread.sleep(TICK_MS);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            long late = now - before - TICK_MS * 1_000_000L;
            if (late > STALL_NS) {
                nodePauses.increment();
                if (now - lastPauseLog >= LOG_EVERY_NS) {
                    lastPauseLog = now;
                    LOG.warn("node paused: the stall watchdog woke {} ms late (a GC or safepoint, or no CPU for the "
                            + "process); live events waited as long", String.format(Locale.ROOT, "%.0f", late / 1e6));
                }
            }
            for (int i = 0; i < watched.length; i++) {
                look(i, now);
            }
        }
    }

    private void look(int i, long now) {
        Watched unit = units.get(i);
        long since = unit.busySince().getAsLong();
        if (watched[i] != 0 && since != watched[i]) {
            // the stalled step ended (the unit polled again)
            ended(i, unit, now);
        }
        if (since != 0 && watched[i] == 0 && now - since > STALL_NS) {
            watched[i] = since;
            stacks[i] = unit.thread().getStackTrace();
        }
    }

    private void ended(int i, Watched unit, long now) {
        long took = now - watched[i]; // within a tick of the step's end
        unitStalls.increment();
        if (now - lastLogged[i] >= LOG_EVERY_NS) {
            lastLogged[i] = now;
            StringBuilder at = new StringBuilder();
            StackTraceElement[] stack = stacks[i];
            for (int f = 0; f < Math.min(FRAMES, stack.length); f++) {
                at.append("\n\tat ").append(stack[f]);
            }
            lastStall = String.format(Locale.ROOT, "unit=%s stalled: a step between two polls took about %.0f ms (live "
                    + "events behind it waited); its stack %d ms into it:%s", unit.name(), took / 1e6,
                    STALL_NS / 1_000_000, at);
            LOG.warn(lastStall);
        }
        watched[i] = 0;
        stacks[i] = null;
    }

    /** The last unit stall logged (tests). */
    String lastStall() {
        return lastStall;
    }

    public void stop() {
        running = false;
        thread.interrupt();
    }
}
