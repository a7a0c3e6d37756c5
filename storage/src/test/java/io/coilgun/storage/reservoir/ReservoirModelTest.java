package io.coilgun.storage.reservoir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;

/**
 * The reservoir against a trivial model: a list of accepted events. Random appends (in order and out of order
 * within the lateness), window iterators at random lags (shared when equal), checkpoints, retention, clean reopens
 * and crashes (the reservoir abandoned without a checkpoint, then the lost arrivals replayed as Kafka would).
 * After every advance, each iterator must have passed exactly the events at or below its horizon, once each.
 * Chunks, segments and the cache are tiny so that every path (sealing, segment rolls, loads, read-ahead,
 * retention) runs many times.
 */
class ReservoirModelTest {
    static final long LATENESS = 100;
    static final long MAX_LAG = 2_000;
    static final long[] LAGS = {0, 10, 50, 99, 100, 150, 400, 2_000};
    static final java.util.concurrent.atomic.AtomicLong DISK_READS = new java.util.concurrent.atomic.AtomicLong();
    static final ReservoirIO IO = new ReservoirIO(2, 1);
    static final ReservoirConfig CONFIG = new ReservoirConfig(LATENESS, 300, 250, 2_000);

    @AfterContainer
    static void closeIo() {
        IO.close();
        System.out.println("ReservoirModelTest: chunks read back from disk over all tries: " + DISK_READS.get());
        assertTrue(DISK_READS.get() > 0, "the tries read sealed chunks back from disk");
    }

    sealed interface Op permits Append, Checkpoint, AddIterator, Cancel, Reopen, Retain, Scan {
    }

    record Append(int dt, int size) implements Op {
    }

    record Checkpoint() implements Op {
    }

    record AddIterator(int lagIndex, boolean fromNow) implements Op {
    }

    record Cancel(int which) implements Op {
    }

    record Reopen(boolean crash) implements Op {
    }

    record Retain() implements Op {
    }

    record Scan(int back) implements Op {
    }

    @Provide
    Arbitrary<List<Op>> ops() {
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(60, Arbitraries.integers().between(-(int) LATENESS, 30)
                        .flatMap(dt -> Arbitraries.integers().between(1, 60).map(n -> (Op) new Append(dt, n)))),
                net.jqwik.api.Tuple.of(8, Arbitraries.just(new Checkpoint())),
                net.jqwik.api.Tuple.of(5, Arbitraries.integers().between(0, LAGS.length - 1)
                        .flatMap(i -> Arbitraries.of(true, false).map(b -> (Op) new AddIterator(i, b)))),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 20).map(Cancel::new)),
                net.jqwik.api.Tuple.of(2, Arbitraries.of(true, false).map(Reopen::new)),
                net.jqwik.api.Tuple.of(2, Arbitraries.just(new Retain())),
                net.jqwik.api.Tuple.of(2, Arbitraries.integers().between(0, 300).map(Scan::new)));
        return op.list().ofMinSize(50).ofMaxSize(1500);
    }

    record Ev(long time, long seq, byte[] payload) {
    }

    /** What one subscriber has seen, checked against the model. */
    static final class Watcher {
        final long lag;
        final long minSeq;
        final Set<Long> before = new HashSet<>();
        final List<Long> passed = new ArrayList<>();
        final Map<Long, byte[]> payloads = new HashMap<>();
        Subscription sub;

        Watcher(long lag, long minSeq) {
            this.lag = lag;
            this.minSeq = minSeq;
        }

        void attach(Reservoir r, List<Ev> model) {
            before.clear();
            passed.clear();
            long horizon = r.streamTime() - lag;
            for (Ev e : model) {
                if (e.time <= horizon) {
                    before.add(e.seq);
                }
            }
            sub = r.iterator(lag).subscribe(minSeq, (seq, time, schema, data, off, len) -> {
                passed.add(seq);
                payloads.put(seq, java.util.Arrays.copyOfRange(data, off, off + len));
            });
        }

        void check(Reservoir r, List<Ev> model, String where) {
            long horizon = r.streamTime() - lag;
            Set<Long> seen = new HashSet<>();
            for (long s : passed) {
                assertTrue(seen.add(s), where + ": lag " + lag + " passed seq " + s + " twice");
                assertTrue(!before.contains(s), where + ": lag " + lag + " passed seq " + s + " that was behind it");
            }
            for (Ev e : model) {
                boolean due = e.time <= horizon && e.seq >= minSeq && !before.contains(e.seq);
                assertEquals(due, seen.contains(e.seq), () -> where + ": lag " + lag + " seq " + e.seq + " time "
                        + e.time + " horizon " + horizon + (due ? " not passed" : " passed too early"));
                if (due) {
                    assertArrayEquals(e.payload, payloads.get(e.seq), where + ": payload of seq " + e.seq);
                }
            }
        }
    }

    @Property(tries = 60)
    void behavesLikeTheModel(@ForAll("ops") List<Op> ops) throws IOException {
        Path dir = Files.createTempDirectory("reservoir-model");
        List<Ev> model = new ArrayList<>();
        List<Ev> sinceCheckpoint = new ArrayList<>();
        List<Watcher> watchers = new ArrayList<>();
        byte[] checkpoint = null;
        // the stream time of the last checkpoint: what a crash goes back to, and what retention may go by (as
        // TaskPlan retains right after each commit): retention by a later stream time dropped events that the
        // iterators of a reservoir reopened at the checkpoint still had to pass
        long committedTime = Reservoir.NO_TIME;
        long seq = 0;
        Reservoir r = Reservoir.open(dir, CONFIG, IO, new ChunkCache(3, 1 << 20), null);
        try {
            for (int step = 0; step < ops.size(); step++) {
                Op op = ops.get(step);
                String where = "step " + step + " " + op;
                if (op instanceof Append a) {
                    long s = r.streamTime();
                    long t = s == Reservoir.NO_TIME ? 1_000 : Math.max(s + a.dt(), s - LATENESS);
                    byte[] payload = payload(seq, a.size());
                    r.append(t, seq, 1, payload);
                    Ev e = new Ev(t, seq, payload);
                    model.add(e);
                    sinceCheckpoint.add(e);
                    seq++;
                    r.advance();
                    for (Watcher w : watchers) {
                        w.check(r, model, where);
                    }
                } else if (op instanceof Checkpoint) {
                    checkpoint = r.checkpoint();
                    r.committed();
                    committedTime = r.streamTime();
                    sinceCheckpoint.clear();
                } else if (op instanceof AddIterator a) {
                    Watcher w = new Watcher(LAGS[a.lagIndex()], a.fromNow() ? seq : 0);
                    w.attach(r, model);
                    watchers.add(w);
                } else if (op instanceof Cancel c && !watchers.isEmpty()) {
                    watchers.remove(c.which() % watchers.size()).sub.cancel();
                } else if (op instanceof Reopen reopen) {
                    if (!reopen.crash()) {
                        checkpoint = r.checkpoint();
                        r.committed();
                        sinceCheckpoint.clear();
                        r.close();
                    } else {
                        abandon(r);
                    }
                    r = Reservoir.open(dir, CONFIG, IO, new ChunkCache(3, 1 << 20), checkpoint);
                    committedTime = r.streamTime();
                    model.removeAll(sinceCheckpoint);
                    long expectedLast = model.stream().mapToLong(Ev::seq).max().orElse(-1);
                    assertEquals(expectedLast, r.lastSeq(), where + ": offset to replay after");
                    for (Watcher w : watchers) {
                        w.attach(r, model);
                    }
                    // Kafka redelivers what the crash lost, in the same order, with the same offsets.
                    List<Ev> replay = new ArrayList<>(sinceCheckpoint);
                    sinceCheckpoint.clear();
                    for (Ev e : replay) {
                        r.append(e.time, e.seq, 1, e.payload);
                        model.add(e);
                        sinceCheckpoint.add(e);
                        r.advance();
                    }
                    for (Watcher w : watchers) {
                        w.check(r, model, where + " after replay");
                    }
                } else if (op instanceof Retain && committedTime != Reservoir.NO_TIME) {
                    r.retainFrom(committedTime - MAX_LAG - LATENESS);
                } else if (op instanceof Scan sc && r.streamTime() != Reservoir.NO_TIME) {
                    long after = r.streamTime() - sc.back();
                    List<Long> got = new ArrayList<>();
                    List<long[]> keys = new ArrayList<>();
                    r.scan(after, r.streamTime(), (s2, t2, schema, data, off, len) -> {
                        got.add(s2);
                        keys.add(new long[] {t2, s2});
                    });
                    List<Long> expected = model.stream().filter(e -> e.time > after)
                            .sorted(Comparator.comparingLong(Ev::time).thenComparingLong(Ev::seq))
                            .map(Ev::seq).toList();
                    if (after >= r.streamTime() - MAX_LAG - LATENESS) {
                        assertEquals(expected, got, where + ": scan in key order");
                    }
                }
            }
        } finally {
            ReservoirStats st = r.stats();
            DISK_READS.addAndGet(st.syncLoads + st.readAheadHits + st.stalls);
            r.close();
            deleteTree(dir);
        }
    }

    /** A crash: the reservoir object is dropped; its buffered journal and unwritten chunks are lost. */
    static void abandon(Reservoir r) {
        r.abandonForTest();
    }

    static byte[] payload(long seq, int size) {
        ByteBuffer b = ByteBuffer.allocate(8 + size);
        b.putLong(seq);
        for (int i = 0; i < size; i++) {
            b.put((byte) (seq * 31 + i));
        }
        return b.array();
    }

    static void deleteTree(Path dir) throws IOException {
        try (var s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
