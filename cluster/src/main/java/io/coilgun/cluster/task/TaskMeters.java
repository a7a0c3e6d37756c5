package io.coilgun.cluster.task;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A task's latency timers, recorded on its unit's thread for every record it takes:
 * <ul>
 *   <li>{@code coilgun.event.processing}: the time the task spent on the record (apply, answer, feed);</li>
 *   <li>{@code coilgun.event.latency}: from the record's Kafka timestamp (when the front end published the event)
 *       until its answer was sent, for the events the task's active copy answers: the event's way through Kafka
 *       and the task.</li>
 * </ul>
 * Their p50, p99 and p99.9 are over the last minute (three rotating buffers of 20 s, Micrometer's distribution
 * statistics). Only this unit's thread records into them, so no cache line is shared with another unit on the hot
 * path; recording allocates nothing.
 */
public final class TaskMeters {
    /** The quantiles every timer publishes. */
    public static final double[] QUANTILES = {0.5, 0.99, 0.999};
    private static final Duration EXPIRY = Duration.ofMinutes(1);

    private final Timer processing;
    private final Timer latency;

    private TaskMeters(MeterRegistry registry, Tags tags) {
        this.processing = timer(registry, "coilgun.event.processing", "Time a task spent on one event", tags,
                Duration.ofNanos(1_000), Duration.ofSeconds(1));
        this.latency = timer(registry, "coilgun.event.latency",
                "From an event's publication to Kafka until its task answered it (the task's active copy)", tags,
                Duration.ofMillis(1), Duration.ofSeconds(30));
    }

    /** Timers that record nowhere (a task not opened by a node: tests, benchmarks). */
    public static final TaskMeters NONE = new TaskMeters(new CompositeMeterRegistry(), Tags.empty());

    /** The timers of task {@code id} of {@code stream} in {@code registry} (the same ones when they exist already). */
    public static TaskMeters of(MeterRegistry registry, String stream, TaskId id) {
        return new TaskMeters(registry, Tags.of("stream", stream, "task", id.toString()));
    }

    private static Timer timer(MeterRegistry registry, String name, String help, Tags tags, Duration min,
            Duration max) {
        return Timer.builder(name).description(help).tags(tags).publishPercentiles(QUANTILES)
                .distributionStatisticExpiry(EXPIRY).distributionStatisticBufferLength(3)
                .minimumExpectedValue(min).maximumExpectedValue(max).register(registry);
    }

    /**
     * One record taken: {@code beganNanos} is {@link System#nanoTime()} before the task took it. Returns the clock
     * read after it, for the unit's own timing (checkpoints).
     */
    public long taken(long beganNanos) {
        long now = System.nanoTime();
        processing.record(now - beganNanos, TimeUnit.NANOSECONDS);
        return now;
    }

    /**
     * The task's active copy answered an event for the first time (not a replica, not a record applied again after
     * a restart or a rollback, whose answer went long ago): {@code publishedMillis} is its Kafka timestamp.
     */
    public void answered(long publishedMillis) {
        latency.record(Math.max(0, System.currentTimeMillis() - publishedMillis), TimeUnit.MILLISECONDS);
    }

    /** Removes task {@code id}'s timers from {@code registry} (no unit of the node holds it any more). */
    public static void removeAll(MeterRegistry registry, TaskId id) {
        for (String name : new String[] {"coilgun.event.processing", "coilgun.event.latency"}) {
            registry.find(name).tag("task", id.toString()).meters().forEach(registry::remove);
        }
    }
}
