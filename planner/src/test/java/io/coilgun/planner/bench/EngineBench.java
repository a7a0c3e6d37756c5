package io.coilgun.planner.bench;

import io.coilgun.planner.agg.Results;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * The task processor alone (issue 4's benchmark): one thread, no Kafka, SUM + COUNT + AVG by card over a sliding
 * window, cards drawn with Zipf-like skew from {@code --cards} (default 1,000,000). Events are encoded before the
 * timed loop; checkpoints every 100 ms, as processor units take them. Prints progress and one RESULT line with events_per_s,
 * events_per_thread_cpu_s (per second of the processing thread's own CPU time), alloc_bytes_per_event (what the
 * processing thread allocated per event, checkpoints included) and rocksdb_write_share (the share of the run the
 * processing thread spent in the checkpoints' RocksDB writes, timed).
 *
 * With {@code --metrics N}, window-count's metric set instead (N misaligned sliding windows of SUM(amount) by card,
 * sizes 30 s to 5 min, delays 0 to 30 s): what many metrics per stream cost the engine, without Kafka.
 *
 * <p>With {@code --backfill}, a second metric like the first is then created {@code WITH (backfill = 'all')} on the
 * same task and filled from the history just applied, with no live events: the fill's events/s, against the live
 * engine's in the same run.
 *
 * <p>{@code --aggregations sum,count,avg,min,max} (any of them, of {@code amount}; count is COUNT(*)) sets what each
 * metric computes: by default SUM, COUNT and AVG for the one metric, SUM for each of {@code --metrics N}.
 *
 * <pre>scripts/bench engine [--window 5m|30d] [--events N] [--cards N] [--rate N (events/s of event time)]
 *     [--metrics N] [--aggregations LIST] [--backfill]</pre>
 */
public final class EngineBench {
    private EngineBench() {
    }

    public static void main(String[] args) throws IOException {
        String window = arg(args, "window", "5m");
        long size = window.equals("30d") ? 30 * Durations.DAY : Durations.parse(window.replace("m", " minutes"));
        int events = Integer.parseInt(arg(args, "events", "2000000"));
        int cards = Integer.parseInt(arg(args, "cards", "1000000"));
        long rate = Long.parseLong(arg(args, "rate", "20000"));
        StreamDef stream = new StreamDef("payments", List.of(new StreamColumn("id", ColumnType.BIGINT, false),
                new StreamColumn("ts", ColumnType.TIMESTAMP, false), new StreamColumn("card_id", ColumnType.VARCHAR,
                        false), new StreamColumn("amount", ColumnType.DOUBLE, false)), 1, 0, List.of("card_id"), 1,
                10 * Durations.SECOND, LatePolicy.REJECT, "");
        int count = Integer.parseInt(arg(args, "metrics", "0"));
        String aggregations = arg(args, "aggregations", count > 0 ? "sum" : "sum,count,avg");
        List<MetricDef> metrics = count > 0 ? misaligned(count, aggregations(aggregations))
                : List.of(new MetricDef("card", "payments", aggregations(aggregations), List.of(2), "card_id",
                        WindowSpec.sliding(size), ""));
        if (count > 0) {
            window = count + " metrics";
        }
        EventCodec codec = new EventCodec(stream);
        SplittableRandom rnd = new SplittableRandom(42);
        byte[][] payloads = new byte[events][];
        long t = 1_700_000_000_000_000L;
        long gap = 1_000_000 / rate;
        for (int i = 0; i < events; i++) {
            t += 1 + rnd.nextLong(2 * gap);
            double u = rnd.nextDouble();
            String card = "card-" + (long) (cards * u * u * u);
            payloads[i] = codec.encode(new Object[] {(long) i, t, card, Math.round(rnd.nextDouble() * 50_000) / 100.0},
                    0);
        }
        Path dir = Files.createTempDirectory("coilgun-engine");
        try (ReservoirIO io = ReservoirIO.defaults()) {
            TaskPlan plan = TaskPlan.open(dir, stream, metrics, io, new ChunkCache(256, 64L << 20));
            Results results = new Results(metrics.stream().mapToInt(m -> m.aggregations().size()).sum());
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long allocated0 = threads.getCurrentThreadAllocatedBytes();
            long cpu0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            long last = t0;
            long lastCheckpoint = t0;
            long allocatedAtHalf = 0;
            for (int i = 0; i < events; i++) {
                if (i == events / 2) {
                    allocatedAtHalf = threads.getCurrentThreadAllocatedBytes();
                }
                plan.process(payloads[i], i, results); // as a task processor does: the event read in place
                long now = System.nanoTime();
                if (now - lastCheckpoint >= 100_000_000L) {
                    plan.checkpoint(); // as a processor unit does: at most every 100 ms
                    lastCheckpoint = now;
                }
                if (now - last > 2_000_000_000L) {
                    last = now;
                    System.out.printf(Locale.ROOT, "engine %s: %d / %d events, %.0f events/s%n", window, i, events,
                            i / ((now - t0) / 1e9));
                }
            }
            plan.checkpoint();
            double secs = (System.nanoTime() - t0) / 1e9;
            // the processor thread's own CPU time: what the machine's other threads (GC, the reservoir's writer, the
            // state's materializer, RocksDB's flushes) took of the cores is not counted
            double cpuSecs = (threads.getCurrentThreadCpuTime() - cpu0) / 1e9;
            // what the processor thread allocated per event: processing, checkpoints and the benchmark's loop
            long allocatedAtEnd = threads.getCurrentThreadAllocatedBytes();
            double allocatedPerEvent = (allocatedAtEnd - allocated0) / (double) events;
            // the second half alone: less of the state's growth (new cards keep coming, their groups are new)
            double allocatedPerEventLater = (allocatedAtEnd - allocatedAtHalf) / (double) (events - events / 2);
            String backfill = "";
            if (java.util.Arrays.asList(args).contains("--backfill")) {
                MetricDef first = metrics.get(0);
                MetricDef filled = new MetricDef(first.name() + "_backfilled", first.stream(), first.aggregations(),
                        first.groupBy(), first.partitioner(), first.window(), "", first.filter(),
                        MetricDef.BACKFILL_ALL);
                plan.skip(events); // its start marker
                long b0 = System.nanoTime();
                plan.startBackfill(filled);
                long lastPrint = b0;
                long lastBackfillCheckpoint = b0;
                while (plan.backfillStep(System.nanoTime() + 10_000_000L).isEmpty()) {
                    long now = System.nanoTime();
                    if (now - lastBackfillCheckpoint >= 100_000_000L) {
                        plan.checkpoint(); // as a processor unit does while a fill runs: its rows leave memory
                        lastBackfillCheckpoint = now;
                    }
                    if (now - lastPrint > 2_000_000_000L) {
                        lastPrint = now;
                        System.out.printf(Locale.ROOT, "backfill: %s%n", plan.backfillProgress());
                    }
                }
                double bsecs = (System.nanoTime() - b0) / 1e9;
                backfill = String.format(Locale.ROOT, " backfill_events_per_s=%.0f backfill_vs_live=%.2f",
                        events / bsecs, (events / bsecs) / (events / secs));
            }
            long reservoirBytes;
            try (var files = Files.walk(dir)) {
                reservoirBytes = files.filter(p -> p.toString().contains("reservoir") && Files.isRegularFile(p))
                        .mapToLong(p -> p.toFile().length()).sum();
            }
            double rssMb = rssMb();
            // RocksDB on the processor thread, timed: the commits' writes (the group rows and dedup ids are one
            // changelog record per commit; the materializer writes them as rows on a thread of its own)
            double rocksShare = plan.stateStore().writeNanos() / (secs * 1e9);
            double waitedMs = plan.stateStore().changelogWaitNanos() / 1e6;
            double appendShare = plan.stateStore().changelogAppendNanos() / (secs * 1e9);
            plan.close();
            System.gc();
            Runtime rt = Runtime.getRuntime();
            System.out.printf(Locale.ROOT, "RESULT scenario=engine window=%s aggregations=%s events=%d cards=%d events_per_s=%.0f "
                    + "events_per_thread_cpu_s=%.0f "
                    + "alloc_bytes_per_event=%.1f alloc_bytes_per_event_second_half=%.1f heap_mb=%.1f rss_mb=%.1f "
                    + "reservoir_mb=%.1f rocksdb_write_share=%.3f changelog_append_share=%.3f changelog_waited_ms=%.0f%s%n", window, aggregations, events, cards,
                    events / secs, events / cpuSecs, allocatedPerEvent, allocatedPerEventLater,
                    (rt.totalMemory() - rt.freeMemory()) / 1048576.0, rssMb, reservoirBytes / 1048576.0, rocksShare,
                    appendShare, waitedMs, backfill);
        } finally {
            try (var s = Files.walk(dir)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** The window-count benchmark's metrics: sliding windows of 30 s to 5 min, delays of 0 to 30 s. */
    /** {@code --aggregations}: a list of sum, count, avg, min, max, each of {@code amount} (count: COUNT(*)). */
    private static List<AggregationDef> aggregations(String list) {
        List<AggregationDef> out = new java.util.ArrayList<>();
        for (String a : list.split(",")) {
            out.add(switch (a.trim()) {
                case "sum" -> new AggregationDef(AggregationKind.SUM, 3, "total", ColumnType.DOUBLE);
                case "count" -> new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT);
                case "avg" -> new AggregationDef(AggregationKind.AVG, 3, "avg", ColumnType.DOUBLE);
                case "min" -> new AggregationDef(AggregationKind.MIN, 3, "low", ColumnType.DOUBLE);
                case "max" -> new AggregationDef(AggregationKind.MAX, 3, "high", ColumnType.DOUBLE);
                default -> throw new IllegalArgumentException("--aggregations: sum, count, avg, min or max, not " + a);
            });
        }
        return out;
    }

    private static List<MetricDef> misaligned(int n, List<AggregationDef> aggregations) {
        List<MetricDef> out = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            long size = (30 + (long) i * 270 / Math.max(1, n - 1)) * Durations.SECOND;
            long delay = ((i * 7L) % 31) * Durations.SECOND;
            out.add(new MetricDef("w" + i, "payments", aggregations, List.of(2), "card_id",
                    new WindowSpec(WindowSpec.Kind.SLIDING, size, delay), ""));
        }
        return out;
    }

    /** This process's resident set (Linux), or -1. */
    static double rssMb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
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
