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
 * The group arena's hot path (scripts/bench jmh): finding a group that is in memory and changing its clock in the
 * slot of a SUM/COUNT/AVG metric, over arenas of {@code groups} groups with keys drawn uniformly (the cache-miss-bound
 * case) from pre-encoded keys and hashed.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgs = {"-Xmx2g"})
public class GroupArenaBenchmark {
    @Param({"10000", "1000000"})
    int groups;

    private Path dir;
    private StateStore store;
    private GroupArena arena;
    private MetricSlots slots;
    private byte[][] keys;
    private long[] hashes;
    private int[] order;
    private int next;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        dir = Files.createTempDirectory("coilgun-jmh");
        store = StateStore.open(dir);
        arena = new GroupArena(new GroupArena.Budget(Long.MAX_VALUE));
        slots = new MetricSlots(MetricRows.states(store), MetricRows.prefix("m", 'g'), layout(), arena);
        keys = new byte[groups][];
        hashes = new long[groups];
        for (int i = 0; i < groups; i++) {
            keys[i] = ("card-" + i).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            hashes[i] = KnownGroups.hash(keys[i]);
            slots.load(arena.find(keys[i], hashes[i]));
        }
        SplittableRandom rnd = new SplittableRandom(1);
        order = new int[1 << 20];
        for (int i = 0; i < order.length; i++) {
            order[i] = rnd.nextInt(groups);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
        slots.close();
        store.close();
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** SUM(amount), COUNT(*), AVG(amount) over a sliding window: SUM and AVG keep a count and an exact sum each. */
    static RowLayout layout() {
        return SumCountAvg.layout(SumCountAvg.aggregators(), false, SumCountAvg.SHARED);
    }

    @Benchmark
    public long findAndChange() {
        int k = order[next++ & (order.length - 1)];
        int id = arena.find(keys[k], hashes[k]);
        int off = slots.load(id);
        ByteBuffer slab = slots.slab(id);
        slab.putLong(off, slab.getLong(off) + 1);
        return id;
    }
}
