package io.coilgun.planner.agg;

import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import java.nio.ByteBuffer;
import java.util.SplittableRandom;
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
 * One aggregator's add and remove of an event (the sliding window's head and tail), in place in a state slot, and its
 * result (scripts/bench jmh). Amounts are cents as doubles, as payments are.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class AggregatorBenchmark {
    @Param({"COUNT", "SUM_BIGINT", "SUM_DOUBLE", "AVG", "STDDEV"})
    String kind;

    private Aggregator aggregator;
    private ByteBuffer state;
    private Object[] values;
    private int next;

    @Setup
    public void setUp() {
        AggregationKind k = switch (kind) {
            case "COUNT" -> AggregationKind.COUNT;
            case "SUM_BIGINT", "SUM_DOUBLE" -> AggregationKind.SUM;
            default -> AggregationKind.valueOf(kind);
        };
        boolean integral = kind.equals("SUM_BIGINT") || kind.equals("COUNT");
        ColumnType type = integral ? ColumnType.BIGINT : ColumnType.DOUBLE;
        aggregator = Aggregator.of(new AggregationDef(k, 0, "x", k == AggregationKind.COUNT ? ColumnType.BIGINT
                : integral ? ColumnType.BIGINT : ColumnType.DOUBLE), type);
        state = ByteBuffer.allocate(aggregator.stateBytes());
        SplittableRandom rnd = new SplittableRandom(3);
        values = new Object[1024];
        for (int i = 0; i < values.length; i++) {
            long cents = rnd.nextLong(1, 5_000_000);
            values[i] = integral ? (Object) cents : (Object) (cents / 100.0);
        }
    }

    /** An event enters and an older one leaves: the steady state of a sliding window. */
    @Benchmark
    public ByteBuffer addAndRemove() {
        int i = next++ & 1023;
        aggregator.add(state, 0, values[i]);
        aggregator.remove(state, 0, values[(i + 512) & 1023]);
        return state;
    }

    @Benchmark
    public Object result() {
        aggregator.add(state, 0, values[next++ & 1023]);
        return aggregator.result(state, 0);
    }
}
