package io.coilgun.cluster.unit;

import java.lang.management.ManagementFactory;

/**
 * How much of a core a node's background work (backfills, replays) may take: slices are spaced so that they run at
 * most {@code share} of the time, and at most {@code busyShare} while the machine's CPUs are busy (all processes:
 * a Kafka broker and the JIT compiler on the same cores count too).
 *
 * <p>Why the machine's load and not only the slices' time: a fill's CPU is more than its slices (the loader
 * decompressing history chunks, the garbage it leaves, the JIT compiling its code), and a co-located broker or a slow
 * machine leave less. On the 2-core benchmark machine the CPUs were 90-100% busy for seconds during a first fill
 * (most of it the JIT compiling new code paths, the fill's slices a small part), and the live INSERTs (each a few
 * thread hand-offs: pgwire, the producer, the broker, a unit) queued with no single stall anywhere
 * (docs/benchmarks.md). When the machine is busy a fill goes slower, never stops.
 *
 * <p>The load is sampled by a thread of its own ({@code /proc} reads stay off the processor units).
 */
public final class BackgroundBudget implements AutoCloseable {
    /**
     * {@code -Dcoilgun.backgroundShare}: the share of one core when the machine has idle CPU (default 0.25). On the
     * 2-core benchmark machine live p99.9 during a backfill was 75 ms at 0.25, 225 ms at 0.5 and 1 s at 1, before
     * fills read past the chunk cache (docs/benchmarks.md).
     */
    static final String SHARE_PROPERTY = "coilgun.backgroundShare";
    /** {@code -Dcoilgun.backgroundBusyShare}: the share while the machine is busy (default 0.05). */
    static final String BUSY_SHARE_PROPERTY = "coilgun.backgroundBusyShare";
    /** {@code -Dcoilgun.backgroundBusyLoad}: the machine's CPU load (0 to 1) from which it is busy (default 0.8). */
    static final String BUSY_LOAD_PROPERTY = "coilgun.backgroundBusyLoad";
    private static final long SAMPLE_EVERY_MS = 200;

    private final double share;
    private final double busyShare;
    private final double busyLoad;
    private final Thread sampler;
    private volatile double load;
    private volatile boolean running = true;
    private volatile long notBefore = System.nanoTime();

    /** The shares and threshold from the system properties. */
    public static BackgroundBudget fromSystemProperties() {
        return new BackgroundBudget(property(SHARE_PROPERTY, 0.25), property(BUSY_SHARE_PROPERTY, 0.05),
                property(BUSY_LOAD_PROPERTY, 0.8));
    }

    /** @param busyLoad above 1: never busy (no sampling) */
    BackgroundBudget(double share, double busyShare, double busyLoad) {
        this.share = clamp(share);
        this.busyShare = Math.min(this.share, clamp(busyShare));
        this.busyLoad = busyLoad;
        this.sampler = new Thread(this::sample, "coilgun-cpu-load");
        sampler.setDaemon(true);
        if (busyLoad <= 1) {
            sampler.start();
        }
    }

    /** When the next background slice may begin (System.nanoTime). */
    public long notBefore() {
        return notBefore;
    }

    /** A slice ran from {@code began} to {@code ended}: the next waits so that background work keeps its share. */
    public void ran(long began, long ended) {
        double s = busy() ? busyShare : share;
        notBefore = ended + (long) ((ended - began) * (1 - s) / s);
    }

    /** No slice before {@code at} (System.nanoTime), whatever the share allows. */
    public synchronized void deferTo(long at) {
        if (at - notBefore > 0) {
            notBefore = at;
        }
    }

    /** True while the machine's CPUs are busier than the threshold. */
    public boolean busy() {
        return load >= busyLoad;
    }

    private void sample() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (!(os instanceof com.sun.management.OperatingSystemMXBean sun)) {
            return; // no reading: the share alone
        }
        while (running) {
            observe(sun.getCpuLoad()); // since the previous call; negative when not available
            try {
                Thread.sleep(SAMPLE_EVERY_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The machine's CPU load now (0 to 1; negative: unknown). */
    void observe(double cpuLoad) {
        load = cpuLoad < 0 ? 0 : cpuLoad;
    }

    @Override
    public void close() {
        running = false;
        sampler.interrupt();
    }

    private static double clamp(double share) {
        return Math.min(1, Math.max(0.01, share));
    }

    private static double property(String name, double otherwise) {
        String v = System.getProperty(name);
        return v == null ? otherwise : Double.parseDouble(v);
    }
}
