package io.coilgun.cluster.ingest;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * How many events a node has published and not yet answered, bounded: a node offered more than it can do makes its
 * statements wait for room, first come first served, instead of growing the producer's buffer and its reply
 * tables until it falls over; a statement that finds no room within {@code waitMs} fails with {@code 53000},
 * nothing of it published. Each connection runs one statement at a time (pgwire reads no further meanwhile), and a
 * big COPY publishes a few batches at a time, so a connection holds a bounded part too.
 *
 * <p>Never blocks: {@link #acquire} answers with a future, completed on the thread that releases room.
 */
public final class InflightBudget {
    /** How long a statement waits for room by default. */
    public static final long DEFAULT_WAIT_MS = Long.getLong("coilgun.inflightWaitMs", 5_000);

    private record Waiter(int events, CompletableFuture<Integer> granted) {
    }

    private final int limit;
    private final long waitMs;
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private int available;
    /** Statements that had to wait for room, and those that found none in time. */
    private long waited;
    private long refused;

    public InflightBudget(int limit, long waitMs) {
        if (limit <= 0) {
            throw new IllegalArgumentException("limit " + limit);
        }
        this.limit = limit;
        this.waitMs = waitMs;
        this.available = limit;
    }

    /** The bound. */
    public int limit() {
        return limit;
    }

    /** Statements that had to wait for room since the node started. */
    public synchronized long waited() {
        return waited;
    }

    /** Statements that found no room in time (53000) since the node started. */
    public synchronized long refused() {
        return refused;
    }

    /** Events in flight now. */
    public synchronized int inflight() {
        return limit - available;
    }

    /**
     * Room for {@code events} events (a statement larger than the whole budget takes all of it). Completes with the
     * number taken, which the caller gives back with {@link #release} when the statement ends, or with a
     * {@link CoilgunException} {@code 53000} after waiting {@code waitMs} in vain.
     */
    public CompletableFuture<Integer> acquire(int events) {
        int n = Math.min(Math.max(events, 1), limit);
        CompletableFuture<Integer> granted = new CompletableFuture<>();
        synchronized (this) {
            if (waiters.isEmpty() && available >= n) {
                available -= n;
                return CompletableFuture.completedFuture(n);
            }
            waiters.add(new Waiter(n, granted));
            waited++;
        }
        // a waiter that times out gives up its place; room granted at the same moment is given back
        return granted.orTimeout(waitMs, TimeUnit.MILLISECONDS).exceptionallyCompose(e -> {
            if (e instanceof TimeoutException) {
                synchronized (this) {
                    waiters.removeIf(w -> w.granted() == granted);
                    refused++;
                }
                return CompletableFuture.failedFuture(full(n));
            }
            return CompletableFuture.failedFuture(e);
        });
    }

    private CoilgunException full(int n) {
        return new CoilgunException(SqlState.INSUFFICIENT_RESOURCES, "the node is at its bound of " + limit
                + " events in flight (--max-inflight-events): the statement's " + n + " found no room within "
                + waitMs + " ms and nothing of it was applied; the node takes events more slowly than they come, "
                + "try again later or spread the load over more nodes");
    }

    /** Gives back what {@link #acquire} took; hands it on to the statements waiting, in order. */
    public void release(int events) {
        ArrayDeque<Waiter> ready = null;
        synchronized (this) {
            available += events;
            while (!waiters.isEmpty() && waiters.peek().events() <= available) {
                Waiter w = waiters.poll();
                available -= w.events();
                if (ready == null) {
                    ready = new ArrayDeque<>();
                }
                ready.add(w);
            }
        }
        if (ready == null) {
            return;
        }
        for (Waiter w : ready) {
            if (!w.granted().complete(w.events())) {
                release(w.events()); // it timed out meanwhile
            }
        }
    }
}
