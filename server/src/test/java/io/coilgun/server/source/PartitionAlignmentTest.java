package io.coilgun.server.source;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The alignment of a source reader's partitions over random topics, read by a simulated Kafka consumer that behaves
 * as the real one does where it matters: a poll brings runs of one partition at a time from the partitions not
 * paused, some partitions' fetches answer later than others', a partition's lag is unknown until its first fetch
 * answered and stale while it is paused, and a seek sets a partition back. Topics are sparse, dense, empty and
 * late-starting, with gaps longer than the lateness, read whole (all records there before reading starts) or live
 * (records arriving at about their event time). Each must be read to its end, every record once and in its
 * partition's order, none late that need not be, and the alignment holds two times per partition at most.
 */
class PartitionAlignmentTest {
    private static final long LATENESS = 60_000_000L; // one minute, in micros
    private static final long SECOND = 1_000_000L;

    @Test
    void theCaseThatStalledIsReadToItsEnd() {
        // issue 58: two dense partitions from 08:00, two sparse ones starting more than a minute later, their records
        // more than half the lateness apart; the reader stopped after 19 records
        List<List<Long>> partitions = new ArrayList<>();
        partitions.add(times(0, 2 * SECOND, 1000));
        partitions.add(times(0, 3 * SECOND, 700));
        partitions.add(times(75 * SECOND, 40 * SECOND, 40));
        partitions.add(times(90 * SECOND, 35 * SECOND, 50));
        for (int seed = 0; seed < 50; seed++) {
            readWhole(partitions, new Random(seed));
        }
    }

    @Test
    void everyRecordOfRandomTopicsIsReadOnceInTimeWhenTheTopicIsThereAlready() {
        for (int seed = 0; seed < 400; seed++) {
            Random rnd = new Random(seed);
            readWhole(randomTopic(rnd), rnd);
        }
    }

    @Test
    void everyRecordOfRandomTopicsIsReadOnceInTimeWhileTheyArrive() {
        for (int seed = 0; seed < 300; seed++) {
            Random rnd = new Random(seed);
            List<List<Long>> topic = randomTopic(rnd);
            long jitter = rnd.nextInt(4) == 0 ? 0 : rnd.nextLong(LATENESS / 4);
            List<List<Long>> arrivals = new ArrayList<>();
            for (List<Long> p : topic) { // each record arrives a little after its event time
                List<Long> a = new ArrayList<>();
                long previous = Long.MIN_VALUE;
                for (long t : p) {
                    previous = Math.max(previous, t + (jitter == 0 ? 0 : rnd.nextLong(jitter)));
                    a.add(previous);
                }
                arrivals.add(a);
            }
            read(topic, arrivals, rnd, "seed " + seed);
        }
    }

    /** Records in each partition in time order, except for disorder within a few seconds in some. */
    private static List<List<Long>> randomTopic(Random rnd) {
        int n = 1 + rnd.nextInt(6);
        List<List<Long>> topic = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int shape = rnd.nextInt(5);
            int records = shape == 0 ? 0 : shape == 1 ? 1 + rnd.nextInt(5) : rnd.nextInt(400);
            long start = rnd.nextInt(3) == 0 ? rnd.nextLong(10 * LATENESS) : rnd.nextLong(5 * SECOND);
            long gap = shape == 2 ? LATENESS / 2 + rnd.nextLong(2 * LATENESS) : 1 + rnd.nextLong(5 * SECOND);
            List<Long> p = new ArrayList<>();
            long t = start;
            boolean disorder = rnd.nextInt(4) == 0;
            for (int r = 0; r < records; r++) {
                t += rnd.nextInt(10) == 0 ? rnd.nextLong(3 * LATENESS) : rnd.nextLong(gap); // some gaps past lateness
                p.add(disorder ? t - rnd.nextLong(5 * SECOND) : t);
            }
            topic.add(p);
        }
        return topic;
    }

    private static List<Long> times(long start, long step, int n) {
        return IntStream.range(0, n).mapToObj(i -> start + i * step).toList();
    }

    private static void readWhole(List<List<Long>> topic, Random rnd) {
        List<List<Long>> arrivals = topic.stream().map(p -> p.stream().map(t -> Long.MIN_VALUE).toList()).toList();
        read(topic, arrivals, rnd, topic.stream().map(List::size).toList().toString());
    }

    /**
     * Reads {@code topic} as SourceReader does (poll, take, seek back what is held, pause what is ahead) and checks
     * it. {@code arrivals}: when each record is in the topic (on the clock polls advance); MIN_VALUE: from the start.
     */
    private static void read(List<List<Long>> topic, List<List<Long>> arrivals, Random rnd, String what) {
        SimulatedConsumer consumer = new SimulatedConsumer(topic, arrivals, rnd);
        PartitionAlignment<Integer> alignment = new PartitionAlignment<>(LATENESS);
        int total = topic.stream().mapToInt(List::size).sum();
        long[] nextOffset = new long[topic.size()];
        long[] highest = new long[topic.size()]; // the latest event time taken from each partition so far
        java.util.Arrays.fill(highest, Long.MIN_VALUE);
        long streamTime = Long.MIN_VALUE; // the latest event time taken from any partition
        int read = 0;
        long limit = 20L * total + 2000;
        for (long poll = 0; read < total; poll++) {
            if (poll > limit) {
                fail(what + ": stalled after " + read + " of " + total + " records; lags "
                        + consumer.lags() + ", paused " + consumer.paused);
            }
            List<int[]> polled = consumer.poll(); // {partition, offset}
            List<Integer> partitions = polled.stream().map(r -> r[0]).toList();
            List<Long> times = polled.stream().map(r -> topic.get(r[0]).get(r[1])).toList();
            boolean[] take = alignment.take(partitions, times, consumer.assignment(), consumer::mayHaveRecords);
            Set<Integer> held = new HashSet<>();
            for (int i = 0; i < polled.size(); i++) {
                int p = polled.get(i)[0];
                int offset = polled.get(i)[1];
                if (!take[i]) {
                    if (held.add(p)) {
                        consumer.seek(p, offset);
                    }
                    continue;
                }
                assertEquals(nextOffset[p], offset, what + ": partition " + p + " read in order, each record once");
                nextOffset[p]++;
                long t = times.get(i);
                long ownDisorder = highest[p] == Long.MIN_VALUE ? 0 : Math.max(0, highest[p] - t);
                // none is late that need not be: within half the lateness of what was taken before, but for the
                // disorder of its own partition (and, read live, how much later than its event time it arrived)
                long slack = LATENESS / 2 + ownDisorder + consumer.delay(p, offset);
                assertTrue(streamTime == Long.MIN_VALUE || streamTime - t <= slack, what + ": record " + p + "@"
                        + offset + " at " + t + " taken " + (streamTime - t) + " behind the stream's time");
                streamTime = Math.max(streamTime, t);
                highest[p] = Math.max(highest[p], t);
                read++;
            }
            consumer.pause(alignment.ahead(consumer.assignment(), consumer::mayHaveRecords));
            assertTrue(alignment.size() <= topic.size(), "two times per partition at most");
        }
    }

    /**
     * A consumer of one topic's partitions, as Kafka's behaves towards the reader: each poll advances the clock,
     * answers the fetches of some partitions not paused (the others' come later), and returns a run of records of
     * one or a few of them; a partition's lag is known once a fetch of it answered, as of that answer.
     */
    private static final class SimulatedConsumer {
        static final long POLL_MICROS = 200_000;
        private final List<List<Long>> topic;
        private final List<List<Long>> arrivals;
        private final Random rnd;
        private final long[] position;
        private final long[] highWatermark; // -1: no fetch answered yet
        private final int[] arrived;
        private final Set<Integer> paused = new HashSet<>();
        private final List<Integer> assignment;
        private long clock;

        SimulatedConsumer(List<List<Long>> topic, List<List<Long>> arrivals, Random rnd) {
            this.topic = topic;
            this.arrivals = arrivals;
            this.rnd = rnd;
            this.position = new long[topic.size()];
            this.highWatermark = new long[topic.size()];
            this.arrived = new int[topic.size()];
            java.util.Arrays.fill(highWatermark, -1);
            this.assignment = IntStream.range(0, topic.size()).boxed().toList();
            long first = arrivals.stream().flatMap(List::stream).filter(a -> a != Long.MIN_VALUE)
                    .mapToLong(Long::longValue).min().orElse(0);
            this.clock = first - POLL_MICROS;
        }

        List<Integer> assignment() {
            return assignment;
        }

        List<int[]> poll() {
            clock += POLL_MICROS;
            long nextArrival = Long.MAX_VALUE; // nothing to read: the reader idles until the next record arrives
            for (int p : assignment) {
                int there = arrived(p);
                if (position[p] < there) {
                    nextArrival = Long.MIN_VALUE;
                    break;
                }
                if (there < arrivals.get(p).size()) {
                    nextArrival = Math.min(nextArrival, arrivals.get(p).get(there));
                }
            }
            if (nextArrival != Long.MIN_VALUE && nextArrival != Long.MAX_VALUE) {
                clock = Math.max(clock, nextArrival);
            }
            List<int[]> records = new ArrayList<>();
            List<Integer> order = new ArrayList<>(assignment);
            java.util.Collections.shuffle(order, rnd);
            int runs = 1 + rnd.nextInt(2);
            for (int p : order) {
                if (paused.contains(p) || rnd.nextInt(3) == 0) {
                    continue; // paused, or its fetch has not answered yet
                }
                int there = arrived(p);
                highWatermark[p] = there;
                if (runs > 0 && position[p] < there) {
                    runs--;
                    int n = (int) Math.min(there - position[p], 1 + rnd.nextInt(rnd.nextBoolean() ? 500 : 20));
                    for (int i = 0; i < n; i++) {
                        records.add(new int[] {p, (int) position[p]++});
                    }
                }
            }
            return records;
        }

        private int arrived(int p) { // the clock only moves on: count on from the last count
            List<Long> a = arrivals.get(p);
            int n = arrived[p];
            while (n < a.size() && a.get(n) <= clock) {
                n++;
            }
            arrived[p] = n;
            return n;
        }

        /** How much later than its event time a record arrived (0 for a topic read whole). */
        long delay(int p, int offset) {
            long a = arrivals.get(p).get(offset);
            return a == Long.MIN_VALUE ? 0 : Math.max(0, a - topic.get(p).get(offset));
        }

        void seek(int p, long offset) {
            position[p] = offset;
        }

        void pause(List<Integer> ahead) {
            paused.clear();
            paused.addAll(ahead);
        }

        OptionalLong currentLag(int p) {
            return highWatermark[p] < 0 ? OptionalLong.empty() : OptionalLong.of(highWatermark[p] - position[p]);
        }

        boolean mayHaveRecords(Integer p) {
            OptionalLong l = currentLag(p);
            return l.isEmpty() || l.getAsLong() > 0;
        }

        String lags() {
            return assignment.stream().map(p -> currentLag(p).isPresent() ? "" + currentLag(p).getAsLong() : "?")
                    .toList().toString();
        }
    }
}
