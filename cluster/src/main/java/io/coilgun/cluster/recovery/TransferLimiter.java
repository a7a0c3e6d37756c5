package io.coilgun.cluster.recovery;

/**
 * The rate at which a node sends task data to its peers, shared by every transfer it serves: a token bucket of
 * bytes refilled at {@code bytesPerSecond}, holding at most one second's worth. A sender waits for its bytes before
 * it reads them, so the disk reads and the network both stay under the rate. Transfer threads only: never a
 * processor unit's.
 */
public final class TransferLimiter {
    private final long bytesPerSecond;
    private double available;
    private long refilledAt = System.nanoTime();

    /** @param bytesPerSecond the rate; 0 or less for no limit */
    public TransferLimiter(long bytesPerSecond) {
        this.bytesPerSecond = bytesPerSecond;
        this.available = Math.max(bytesPerSecond, 0);
    }

    public long bytesPerSecond() {
        return bytesPerSecond;
    }

    /** Waits until {@code bytes} may be sent. */
    public void acquire(int bytes) throws InterruptedException {
        if (bytesPerSecond <= 0) {
            return;
        }
        long waitNanos;
        synchronized (this) {
            long now = System.nanoTime();
            available = Math.min(bytesPerSecond, available + (now - refilledAt) * bytesPerSecond / 1e9);
            refilledAt = now;
            available -= bytes;
            waitNanos = available >= 0 ? 0 : (long) (-available * 1e9 / bytesPerSecond);
        }
        if (waitNanos > 0) {
            Thread.sleep(waitNanos / 1_000_000, (int) (waitNanos % 1_000_000));
        }
    }
}
