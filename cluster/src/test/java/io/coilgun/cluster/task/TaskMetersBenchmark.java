package io.coilgun.cluster.task;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the per-record timers cost a processor unit ({@link TaskMeters#taken} and {@link TaskMeters#answered}: two
 * clock reads, two timers with quantiles), against the clock reads alone (scripts/bench jmh TaskMetersBenchmark). The Prometheus registry keeps
 * its timers as Micrometer's step-free cumulative ones, as {@code SimpleMeterRegistry} in cumulative mode does.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TaskMetersBenchmark {
    @Param({"registry", "none"})
    String meters;

    private TaskMeters task;
    private long published;

    @Setup
    public void setUp() {
        task = meters.equals("none") ? TaskMeters.NONE : TaskMeters.of(new SimpleMeterRegistry(
                io.micrometer.core.instrument.simple.SimpleConfig.DEFAULT, io.micrometer.core.instrument.Clock.SYSTEM),
                "payments", new TaskId("coilgun.stream.payments.card_id", 0));
        published = System.currentTimeMillis();
    }

    @Benchmark
    public long taken() {
        long began = System.nanoTime();
        task.taken(began);
        task.answered(published);
        return began;
    }

    @Benchmark
    public long clocksOnly() {
        return System.nanoTime() + System.currentTimeMillis();
    }
}
