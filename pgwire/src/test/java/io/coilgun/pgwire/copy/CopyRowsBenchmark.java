package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.types.PgTextEncoder;
import io.coilgun.pgwire.types.TextBuffer;
import java.time.LocalDateTime;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One row of {@code COPY (REPLAY …) TO STDOUT} as the pgwire thread frames it (the benchmark's replay: id, ts,
 * card_id, merchant_id, amount, then SUM and COUNT; ts as microseconds, as REPLAY sends it): each value's text as a
 * String then the line ({@code strings}, the way before), or written straight into the batch ({@code direct},
 * {@link CopyRowWriter#appendRow}). {@code scripts/bench jmh --module pgwire CopyRowsBenchmark -prof gc}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class CopyRowsBenchmark {
    private static final PgType[] TYPES = {PgType.INT8, PgType.TIMESTAMP, PgType.VARCHAR, PgType.VARCHAR,
        PgType.FLOAT8, PgType.FLOAT8, PgType.INT8};
    private static final int ROWS = 4096;

    private final Object[][] rows = new Object[ROWS][];
    private final CopyRowWriter writer = new CopyRowWriter(CopyFormat.text());
    private final String[] fields = new String[TYPES.length];
    private final TextBuffer out = new TextBuffer(64 * 1024);
    private byte[] batch = new byte[64 * 1024];
    private int batchLength;
    private int next;

    @Setup
    public void setUp() {
        SplittableRandom random = new SplittableRandom(3);
        long startMicros = LocalDateTime.of(2026, 1, 1, 0, 0).toEpochSecond(java.time.ZoneOffset.UTC) * 1_000_000;
        double sum = 0;
        for (int i = 0; i < ROWS; i++) {
            double amount = random.nextInt(1, 100_000) / 100.0;
            sum += amount * 997; // sums of amounts: 16-17 significant digits, as a card's SUM has
            rows[i] = new Object[] {(long) i * 7919, startMicros + random.nextLong(1L << 45), // ts: micros
                "card-" + random.nextInt(1_000_000), "m-" + random.nextInt(100_000), amount, sum,
                (long) random.nextInt(1, 5000)};
        }
    }

    @Benchmark
    public int strings() {
        Object[] row = rows[next++ & (ROWS - 1)];
        for (int i = 0; i < fields.length; i++) {
            fields[i] = PgTextEncoder.encode(TYPES[i], row[i]);
        }
        byte[] data = writer.row(fields);
        if (batchLength + 5 + data.length > batch.length) {
            batchLength = 0;
        }
        batch[batchLength] = 'd';
        System.arraycopy(data, 0, batch, batchLength + 5, data.length);
        batchLength += 5 + data.length;
        return batchLength;
    }

    @Benchmark
    public int direct() {
        if (out.length() > 60 * 1024) {
            out.truncate(0);
        }
        writer.appendRow(TYPES, rows[next++ & (ROWS - 1)], out);
        return out.length();
    }
}
