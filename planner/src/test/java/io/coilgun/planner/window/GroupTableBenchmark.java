package io.coilgun.planner.window;

import io.coilgun.storage.state.StateStore;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The group table's hot path (scripts/bench jmh): finding a group that is in memory and marking its row changed, over
 * tables of {@code groups} groups with keys drawn uniformly (the cache-miss-bound case) from pre-encoded keys.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx2g"})
public class GroupTableBenchmark {
    @Param({"10000", "1000000"})
    int groups;

    private Path dir;
    private StateStore store;
    private GroupTable table;
    private byte[][] keys;
    private int[] order;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("coilgun-jmh");
        store = StateStore.open(dir);
        table = new GroupTable(MetricRows.states(store), MetricRows.prefix("m", 'g'), () -> ByteBuffer.allocate(236),
                new GroupTable.Budget(Long.MAX_VALUE));
        keys = new byte[groups][];
        for (int i = 0; i < groups; i++) {
            keys[i] = ("card-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            table.find(keys[i]);
        }
        SplittableRandom rnd = new SplittableRandom(1);
        order = new int[1 << 20];
        for (int i = 0; i < order.length; i++) {
            order[i] = rnd.nextInt(groups);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        table.close();
        store.close();
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Benchmark
    public long findAndChange() {
        int id = table.find(keys[order[next++ & (order.length - 1)]]);
        ByteBuffer row = table.row(id);
        row.putLong(0, row.getLong(0) + 1);
        return id;
    }
}
