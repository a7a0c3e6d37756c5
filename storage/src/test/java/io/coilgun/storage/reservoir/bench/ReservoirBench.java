package io.coilgun.storage.reservoir.bench;

import io.coilgun.storage.reservoir.ChunkCache;
import io.coilgun.storage.reservoir.Reservoir;
import io.coilgun.storage.reservoir.ReservoirConfig;
import io.coilgun.storage.reservoir.ReservoirIO;
import io.coilgun.storage.reservoir.ReservoirStats;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;

/**
 * Reservoir benchmarks (issue 3), one thread driving one reservoir as a task processor would, the writer and
 * loader threads behind it. Run through {@code scripts/bench reservoir-*}; each run ends with one {@code RESULT}
 * line.
 *
 * <ul>
 *   <li>{@code append}: append throughput (events/s), bytes per event raw and on disk (zstd), a full scan back
 *       from disk, and live head-and-tail iteration (iterators at 5 min and 1 h) while appending;</li>
 *   <li>{@code heap --window 5m|365d}: 365 days of history preloaded, then live events with one sliding window's
 *       two tails; heap after GC (the 365-day tail reads the oldest chunks back from disk);</li>
 *   <li>{@code iterators --iterators N}: N misaligned iterators over 7 days of history, a chunk cache of 220
 *       chunks, events at a fixed rate; per-event processing time (append plus advancing every iterator).</li>
 * </ul>
 */
public final class ReservoirBench {
    static final long SECOND = 1_000_000L;
    static final long MINUTE = 60 * SECOND;
    static final long DAY = 24 * 60 * MINUTE;
    static final long LATENESS = 10 * SECOND;

    private ReservoirBench() {
    }

    public static void main(String[] args) throws Exception {
        String scenario = args.length > 0 ? args[0] : "help";
        Options o = Options.parse(args);
        switch (scenario) {
            case "append" -> append(o);
            case "heap" -> heap(o);
            case "iterators" -> iterators(o);
            default -> {
                System.out.println("usage: ReservoirBench append|heap|iterators [--events N] [--window 5m|365d] "
                        + "[--iterators N] [--rate N] [--dir D]");
                System.exit(2);
            }
        }
        System.exit(0);
    }

    /** A payment as EventCodec writes it: header, null bitmap, id, ts, card_id, merchant_id, amount. */
    static final class Payments {
        final SplittableRandom rnd;
        final byte[][] cards;
        final byte[][] merchants;

        Payments(long seed, int cardCount, int merchantCount) {
            rnd = new SplittableRandom(seed);
            cards = new byte[cardCount][];
            for (int i = 0; i < cardCount; i++) {
                cards[i] = ("card-" + i).getBytes(StandardCharsets.UTF_8);
            }
            merchants = new byte[merchantCount][];
            for (int i = 0; i < merchantCount; i++) {
                merchants[i] = ("m-" + i).getBytes(StandardCharsets.UTF_8);
            }
        }

        byte[] next(long id, long time) {
            double u = rnd.nextDouble();
            byte[] card = cards[(int) (cards.length * u * u * u)];
            byte[] merchant = merchants[(int) (merchants.length * rnd.nextDouble() * rnd.nextDouble())];
            double amount = Math.round(Math.exp(rnd.nextDouble() * 8) * 100) / 100.0;
            ByteBuffer b = ByteBuffer.allocate(1 + 4 + 8 + 1 + 8 + 8 + 4 + card.length + 4 + merchant.length + 8);
            b.put((byte) 1).putInt(1).putLong(0).put((byte) 0).putLong(id).putLong(time)
                    .putInt(card.length).put(card).putInt(merchant.length).put(merchant).putDouble(amount);
            return b.array();
        }
    }

    /** Event times at a mean spacing, 2% of them up to 5 s behind (within the 10 s lateness). */
    static final class Clock {
        final Random rnd = new Random(7);
        final long spacing;
        long now;

        Clock(long start, long spacing) {
            this.now = start;
            this.spacing = spacing;
        }

        long next() {
            now += 1 + (long) (rnd.nextDouble() * 2 * spacing);
            return rnd.nextInt(50) == 0 ? now - rnd.nextInt(5_000_000) : now;
        }
    }

    static void append(Options o) throws IOException {
        int events = (int) o.events(2_000_000);
        Path dir = o.dir();
        // generated up front, so that the timed loops measure the reservoir, not the generator
        Payments pay = new Payments(1, 1_000_000, 100_000);
        Clock clock = new Clock(1_700_000_000L * SECOND, 1_000); // 1,000 events/s of event time
        long[] times = new long[events];
        byte[][] payloads = new byte[events][];
        long streamTime = clock.now;
        for (int i = 0; i < events; i++) {
            times[i] = Math.max(clock.next(), streamTime - LATENESS);
            streamTime = Math.max(streamTime, times[i]);
            payloads[i] = pay.next(i, times[i]);
        }
        try (ReservoirIO io = ReservoirIO.defaults()) {
            Reservoir r = Reservoir.open(dir, ReservoirConfig.of(LATENESS), io, new ChunkCache(256, 64L << 20), null);
            long t0 = System.nanoTime();
            for (int seq = 0; seq < events; seq++) {
                r.append(times[seq], seq, 1, payloads[seq]);
                if (seq % 1000 == 999) {
                    r.checkpoint();
                    r.committed();
                }
            }
            byte[] ckpt = r.checkpoint();
            r.committed();
            double appendSecs = (System.nanoTime() - t0) / 1e9;
            ReservoirStats written = r.stats();
            long sealedEvents = 0;
            long rawBytes = written.sealedRawBytes;
            r.close(); // waits for the writer
            double writtenSecs = (System.nanoTime() - t0) / 1e9;

            Reservoir again = Reservoir.open(dir, ReservoirConfig.of(LATENESS), io, new ChunkCache(256, 64L << 20),
                    ckpt);
            long disk = again.diskBytes();
            long s0 = System.nanoTime();
            long[] n = new long[1];
            again.scan(Long.MIN_VALUE / 2, Long.MAX_VALUE / 2, (s, t, schema, data, off, len) -> n[0]++);
            double scanRate = n[0] / ((System.nanoTime() - s0) / 1e9);
            ReservoirStats scanned = again.stats();
            sealedEvents = n[0] - scanned.openEvents;
            again.close();
            deleteTree(dir);

            // live head and tail: iterators at 5 minutes and 1 hour, advanced after every append
            Reservoir live = Reservoir.open(dir, ReservoirConfig.of(LATENESS), io, new ChunkCache(256, 64L << 20),
                    null);
            long[] passed = new long[1];
            live.iterator(5 * MINUTE).subscribe(0, (s, t, schema, data, off, len) -> passed[0]++);
            live.iterator(60 * MINUTE).subscribe(0, (s, t, schema, data, off, len) -> passed[0]++);
            long l0 = System.nanoTime();
            for (int seq = 0; seq < events; seq++) {
                live.append(times[seq], seq, 1, payloads[seq]);
                live.advance();
                if (seq % 1000 == 999) {
                    live.checkpoint();
                    live.committed();
                }
            }
            double liveRate = events / ((System.nanoTime() - l0) / 1e9);
            ReservoirStats liveStats = live.stats();
            live.close();
            System.out.printf(Locale.ROOT, "appended %d events in %.2f s (written and synced after %.2f s); "
                    + "scan of %d: %s%nlive: iterators passed %d events; %s%n", events, appendSecs, writtenSecs, n[0],
                    scanned, passed[0], liveStats);
            result("reservoir-append", String.format(Locale.ROOT,
                    "events=%d append_events_per_s=%.0f scan_events_per_s=%.0f live_head_tail_events_per_s=%.0f "
                            + "raw_bytes_per_event=%.1f disk_bytes_per_event=%.1f compression=%.2f",
                    events, events / appendSecs, scanRate, liveRate, (double) rawBytes / sealedEvents,
                    (double) disk / sealedEvents, (double) rawBytes / disk));
        } finally {
            deleteTree(dir);
        }
    }

    static void heap(Options o) throws IOException {
        String window = o.get("window", "5m");
        long lag = switch (window) {
            case "5m" -> 5 * MINUTE;
            case "1h" -> 60 * MINUTE;
            case "1d" -> DAY;
            case "7d" -> 7 * DAY;
            case "365d" -> 365 * DAY;
            default -> throw new IllegalArgumentException("--window 5m|1h|1d|7d|365d");
        };
        long history = o.events(10_000_000);
        long live = o.longOpt("live", 2_000_000);
        long spacing = 365 * DAY / history; // the history spans 365 days
        Path dir = o.dir();
        try (ReservoirIO io = ReservoirIO.defaults()) {
            ChunkCache cache = new ChunkCache(64, 16L << 20);
            Reservoir r = Reservoir.open(dir, ReservoirConfig.of(LATENESS), io, cache, null);
            Payments pay = new Payments(2, 1_000_000, 100_000);
            Clock clock = new Clock(1_700_000_000L * SECOND, spacing);
            long t0 = System.nanoTime();
            long seq = 0;
            for (; seq < history; seq++) {
                long time = Math.max(clock.next(), r.streamTime() - LATENESS);
                r.append(time, seq, 1, pay.next(seq, time));
                if (seq % 5000 == 4999) {
                    r.checkpoint();
                    r.committed();
                }
                progress("preload " + window, seq, history, t0);
            }
            // the window's two tails (lag w and w + lateness), as a sliding-window metric subscribes them
            long[] passed = new long[1];
            r.iterator(lag).subscribe(seq, (s, t, schema, data, off, len) -> passed[0]++);
            r.iterator(lag + LATENESS).subscribe(seq, (s, t, schema, data, off, len) -> passed[0]++);
            long[] sawHistory = new long[1];
            r.iterator(lag).subscribe(0, (s, t, schema, data, off, len) -> sawHistory[0]++);
            long peak = 0;
            List<Long> samples = new ArrayList<>();
            long l0 = System.nanoTime();
            for (long i = 0; i < live; i++, seq++) {
                long time = Math.max(clock.next(), r.streamTime() - LATENESS);
                r.append(time, seq, 1, pay.next(seq, time));
                r.advance();
                if (seq % 5000 == 4999) {
                    r.checkpoint();
                    r.committed();
                }
                if (i % 200_000 == 0) {
                    long used = usedHeapAfterGc();
                    samples.add(used);
                    peak = Math.max(peak, used);
                }
                progress("live " + window, i, live, l0);
            }
            samples.add(usedHeapAfterGc());
            peak = Math.max(peak, samples.get(samples.size() - 1));
            // the median sample: one full GC can land while the writer and loaders hold buffers in flight
            long heap = samples.stream().sorted().toList().get(samples.size() / 2);
            System.out.println("heap after GC during the live phase (MB): "
                    + samples.stream().map(b -> String.format(Locale.ROOT, "%.1f", b / 1048576.0)).toList());
            ReservoirStats st = r.stats();
            System.out.printf(Locale.ROOT, "window %s: tail passed %d history events (read back from disk: %d loads);"
                    + " %s%n", window, sawHistory[0], st.readAheadHits + st.stalls + st.syncLoads, st);
            r.close();
            result("reservoir-heap", String.format(Locale.ROOT, "window=%s history_events=%d live_events=%d "
                    + "heap_mb_%s=%.1f peak_heap_mb_%s=%.1f history_passed=%d disk_loads=%d", window, history, live,
                    window, heap / 1048576.0, window, peak / 1048576.0, sawHistory[0],
                    st.readAheadHits + st.stalls + st.syncLoads));
        } finally {
            deleteTree(dir);
        }
    }

    static void iterators(Options o) throws IOException {
        int count = (int) o.longOpt("iterators", 240);
        long history = o.events(3_000_000);
        long live = o.longOpt("live", 600_000);
        long rate = o.longOpt("rate", 20_000);
        long spacing = 7 * DAY / history;
        Path dir = o.dir();
        try (ReservoirIO io = ReservoirIO.defaults()) {
            Reservoir r = Reservoir.open(dir, ReservoirConfig.of(LATENESS), io, new ChunkCache(220, 1L << 30), null);
            Payments pay = new Payments(3, 1_000_000, 100_000);
            Clock clock = new Clock(1_700_000_000L * SECOND, spacing);
            long t0 = System.nanoTime();
            long seq = 0;
            for (; seq < history; seq++) {
                long time = Math.max(clock.next(), r.streamTime() - LATENESS);
                r.append(time, seq, 1, pay.next(seq, time));
                if (seq % 5000 == 4999) {
                    r.checkpoint();
                    r.committed();
                }
                progress("preload", seq, history, t0);
            }
            // misaligned lags spread over (1 min, 7 days), each on its own iterator
            long[] passed = new long[1];
            Random lr = new Random(11);
            for (int i = 0; i < count; i++) {
                long lag = MINUTE + (long) ((7 * DAY - 2 * MINUTE) * ((i + lr.nextDouble()) / count));
                r.iterator(lag).subscribe(seq, (s, t, schema, data, off, len) -> passed[0]++);
            }
            Histogram h = new Histogram(3_600_000_000_000L, 3);
            long interval = 1_000_000_000L / rate;
            long start = System.nanoTime();
            for (long i = 0; i < live; i++, seq++) {
                long due = start + i * interval;
                while (System.nanoTime() < due) {
                    Thread.onSpinWait();
                }
                long time = Math.max(clock.next(), r.streamTime() - LATENESS);
                byte[] p = pay.next(seq, time);
                long b = System.nanoTime();
                r.append(time, seq, 1, p);
                r.advance();
                if (seq % 5000 == 4999) {
                    r.checkpoint();
                    r.committed();
                }
                h.recordValue(System.nanoTime() - b);
                progress("live " + count + " iterators", i, live, start);
            }
            ReservoirStats st = r.stats();
            System.out.println(st);
            r.close();
            Path csv = Path.of("bench-results", "reservoir-iterators-" + count + ".csv");
            Files.createDirectories(csv.getParent());
            StringBuilder sb = new StringBuilder("percentile,micros\n");
            for (double q : new double[] {50, 90, 99, 99.9, 99.99, 100}) {
                sb.append(q).append(',').append(h.getValueAtPercentile(q) / 1000.0).append('\n');
            }
            Files.writeString(csv, sb.toString());
            result("reservoir-iterators", String.format(Locale.ROOT, "iterators=%d cache_chunks=220 rate=%d "
                    + "p50_us=%.1f p99_us=%.1f p999_us=%.1f p9999_us=%.1f max_us=%.1f stalls=%d read_ahead_hits=%d "
                    + "cache_hits=%d sync_loads=%d passed=%d", count, rate, h.getValueAtPercentile(50) / 1000.0,
                    h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0,
                    h.getValueAtPercentile(99.99) / 1000.0, h.getMaxValue() / 1000.0, st.stalls, st.readAheadHits,
                    st.cacheHits, st.syncLoads, passed[0]));
        } finally {
            deleteTree(dir);
        }
    }

    static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    static long lastProgress;

    static void progress(String what, long i, long n, long t0) {
        long now = System.nanoTime();
        if (now - lastProgress > 2_000_000_000L) {
            lastProgress = now;
            double secs = (now - t0) / 1e9;
            System.out.printf(Locale.ROOT, "%s: %d / %d events, %.0f events/s%n", what, i, n, i / Math.max(secs, 1e-9));
        }
    }

    static void result(String scenario, String keys) {
        Runtime rt = Runtime.getRuntime();
        System.out.printf(Locale.ROOT, "RESULT scenario=%s %s heap_mb=%.1f rss_mb=%.1f%n", scenario, keys,
                (rt.totalMemory() - rt.freeMemory()) / 1048576.0, rssMb());
    }

    static double rssMb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
                }
            }
        } catch (IOException e) {
            // not Linux
        }
        return -1;
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    record Options(List<String> args) {
        static Options parse(String[] a) {
            return new Options(new ArrayList<>(List.of(a)));
        }

        String get(String name, String dflt) {
            int i = args.indexOf("--" + name);
            return i >= 0 && i + 1 < args.size() ? args.get(i + 1) : dflt;
        }

        long longOpt(String name, long dflt) {
            return Long.parseLong(get(name, String.valueOf(dflt)));
        }

        long events(long dflt) {
            return longOpt("events", dflt);
        }

        Path dir() throws IOException {
            String d = get("dir", null);
            return d != null ? Path.of(d) : Files.createTempDirectory("coilgun-bench");
        }
    }
}
