package io.coilgun.planner.bench;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.planner.plan.TaskPlan;
import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.ReservoirIO;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The dedup horizon's cost (issue 12): one task, no Kafka, a COUNT by card over 5 minutes, {@code --events} events
 * (default 10,000,000) with distinct ids, all inside a 24-hour horizon. Runs the stream with event ids (every event
 * looked up and recorded in the RocksDB index) and without (no index), and prints heap after a full GC at 1M, 5M and
 * 10M ids (flat: the ids are in RocksDB, not in heap) and the time per event of each.
 *
 * <pre>scripts/bench dedup [--events N]</pre>
 */
public final class DedupBench {
    private DedupBench() {
    }

    public static void main(String[] args) throws IOException {
        int events = Integer.parseInt(arg(args, "events", "10000000"));
        double with = run(true, events);
        double without = run(false, events);
        System.out.printf(Locale.ROOT, "RESULT scenario=dedup events=%d ns_per_event_with_ids=%.0f "
                + "ns_per_event_without=%.0f dedup_ns_per_event=%.0f%n", events, with, without, with - without);
    }

    /** Runs the events through a task; prints heap along the way; returns ns per event. */
    private static double run(boolean ids, int events) throws IOException {
        StreamDef stream = new StreamDef("payments", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
                new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card_id", ColumnType.VARCHAR,
                        false)), 1, ids ? 0 : -1, List.of("card_id"), 1, 10 * Durations.SECOND, LatePolicy.REJECT, "",
                List.of(3), 0, Durations.DAY, 1);
        MetricDef metric = new MetricDef("card", "payments", List.of(
                new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT)),
                List.of(2), "card_id", WindowSpec.sliding(5 * Durations.MINUTE), "");
        EventCodec codec = new EventCodec(stream);
        SplittableRandom rnd = new SplittableRandom(42);
        Path dir = Files.createTempDirectory("coilgun-dedup");
        Object[] event = new Object[3];
        try (ReservoirIO io = ReservoirIO.defaults()) {
            TaskPlan plan = TaskPlan.open(dir, stream, List.of(metric), io, new ChunkCache(256, 64L << 20));
            Object[] decoded = new Object[3];
            Object[] results = new Object[1];
            long t = 1_700_000_000_000_000L;
            long t0 = System.nanoTime();
            long lastCheckpoint = t0;
            long timed = 0;
            for (int i = 1; i <= events; i++) {
                t += 50 + rnd.nextLong(50); // ~13,000 events per second of event time: 10M within 24 hours
                event[0] = (long) i * 7919; // distinct ids
                event[1] = t;
                event[2] = "card-" + rnd.nextInt(100_000);
                plan.process(codec.encode(event, 0), i, decoded, results);
                long now = System.nanoTime();
                if (now - lastCheckpoint >= 100_000_000L) {
                    plan.checkpoint();
                    lastCheckpoint = now;
                }
                if (i == 1_000_000 || i == 5_000_000 || i == events) {
                    plan.checkpoint();
                    timed += System.nanoTime() - t0;
                    System.out.printf(Locale.ROOT, "dedup ids=%s: %,d events, heap after GC %.1f MB, %.0f ns/event%n",
                            ids, i, heapAfterGc(), timed / (double) i);
                    t0 = System.nanoTime();
                    lastCheckpoint = t0;
                }
            }
            plan.close();
            return timed / (double) events;
        } finally {
            try (var s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static double heapAfterGc() {
        System.gc();
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1048576.0;
    }

    private static String arg(String[] args, String name, String dflt) {
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--" + name)) {
                return args[i + 1];
            }
        }
        return dflt;
    }
}
