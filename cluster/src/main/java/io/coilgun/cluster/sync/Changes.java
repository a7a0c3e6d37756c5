package io.coilgun.cluster.sync;

import java.util.function.BooleanSupplier;

/**
 * What a thread waits on until a condition over shared state holds: the writers {@link #signal()} after each change
 * that may make it hold, and the waiter looks again then (not every few milliseconds). A change signalled while the
 * waiter evaluates its condition is not lost: both happen under one lock.
 */
public final class Changes {
    private final Object lock = new Object();

    /** Wakes every waiter to look at its condition again; call it after the change. */
    public void signal() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    /**
     * Waits until {@code condition} holds (evaluated at once, then after each signal) or {@code timeoutMs} passed.
     * The condition must be quick and must not block. An interrupt ends the wait (false, the flag kept).
     *
     * @return whether the condition held
     */
    public boolean await(BooleanSupplier condition, long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        synchronized (lock) {
            while (!condition.getAsBoolean()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    lock.wait(left / 1_000_000L + 1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return true;
        }
    }
}
