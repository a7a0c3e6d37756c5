package io.coilgun.cluster.recovery;

/**
 * How far a task's copy from a peer has come, for {@code coilgun.tasks}: the bytes received of the snapshot's total
 * (files already on this node count as received), from which node, and an estimate of the time left at the rate so
 * far. Written by the copying thread, read by any.
 */
public final class RecoveryProgress {
    private final long startedNanos = System.nanoTime();
    private volatile String peer = "";
    private volatile long total = -1;
    private volatile long done;
    private volatile long reused;

    void from(String node, long totalBytes) {
        peer = node;
        total = totalBytes;
        done = 0;
        reused = 0;
    }

    void received(long bytes) {
        done += bytes;
    }

    /** Bytes already on this node (a stale copy's unchanged files, a resumed copy's): counted, never sent. */
    void reused(long bytes) {
        reused += bytes;
        done += bytes;
    }

    public String peer() {
        return peer;
    }

    /** The snapshot's size, or -1 before the peer answered. */
    public long totalBytes() {
        return total;
    }

    public long doneBytes() {
        return done;
    }

    public long reusedBytes() {
        return reused;
    }

    /** Seconds left at the rate so far, or -1 before there is a rate. */
    public long etaSeconds() {
        long received = done - reused;
        double elapsed = (System.nanoTime() - startedNanos) / 1e9;
        if (total < 0 || received <= 0 || elapsed <= 0) {
            return -1;
        }
        return (long) Math.ceil((total - done) / (received / elapsed));
    }
}
