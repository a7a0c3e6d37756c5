package io.coilgun.server.source;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Keeps the partitions one source reader reads within half the stream's lateness of each other in event time, and
 * always lets the slowest of them be read. Kafka hands a reader long runs of one partition at a time; taken as they
 * come, the other partitions' events would arrive later than the lateness behind them (dropped or refused as late).
 *
 * <p>What it knows of each partition: the event time of its <em>next</em> record when a poll showed it (the first
 * record of the partition in a poll, or the first one held back), else of the <em>last</em> record taken from it.
 * The slowest partition is the one with the least of these among those that may still have records; a partition
 * that may have records and was never read makes the slowest unknown: everything else waits until it is read once.
 * A poll takes the records up to half the lateness past the slowest; the rest of a partition, from its first record
 * past that bound, is held back (read again later) and the partition pauses while it is that far ahead.
 *
 * <p>Progress: the slowest partition is never paused and its next record is within the bound, so each poll that
 * brings records either takes one or learns a partition's next event time. With every partition in time order, no
 * record is taken more than half the lateness behind one taken before it. The state is two times per assigned
 * partition, whatever the topic holds.
 *
 * @param <P> what names a partition (Kafka's {@code TopicPartition}; an index in tests)
 */
final class PartitionAlignment<P> {
    /** The slowest partition's time when a partition that may have records was never read. */
    static final long UNKNOWN = Long.MIN_VALUE;
    /** The slowest partition's time when no partition may have records. */
    static final long NONE = Long.MAX_VALUE;

    /** Half the stream's lateness (read at each poll: ALTER STREAM may change it). */
    private long allowance;
    /** The event time of each partition's next record, when a poll showed it. */
    private final Map<P, Long> next = new HashMap<>();
    /** The event time of the last record taken from each partition. */
    private final Map<P, Long> last = new HashMap<>();

    /** @param latenessMicros the stream's lateness: partitions are kept within half of it of each other */
    PartitionAlignment(long latenessMicros) {
        lateness(latenessMicros);
    }

    /** The stream's lateness now. */
    void lateness(long latenessMicros) {
        this.allowance = Math.max(latenessMicros / 2, 1);
    }

    /**
     * Which of a poll's records are taken now: each partition's records up to half the lateness past the slowest
     * partition; from its first record past that on, the partition's records are held back (to be read again).
     * {@code partitions.get(i)} and {@code eventTimes.get(i)} are record i's, in poll order; a record without an
     * event time (a bad record) is taken unless its partition is held back by then.
     */
    boolean[] take(List<P> partitions, List<Long> eventTimes, Collection<P> assignment,
            Predicate<P> mayHaveRecords) {
        Map<P, Long> first = new HashMap<>();
        for (int i = 0; i < partitions.size(); i++) {
            if (eventTimes.get(i) != null) {
                first.putIfAbsent(partitions.get(i), eventTimes.get(i));
            }
        }
        next.putAll(first); // a poll starts at each partition's position: its first record is the partition's next
        long slowest = slowest(assignment, mayHaveRecords);
        // a partition not read yet may hold the earliest events: then nothing with a time is taken
        long bound = slowest == UNKNOWN ? UNKNOWN : slowest == NONE ? NONE : saturatedAdd(slowest, allowance);
        boolean[] taken = new boolean[partitions.size()];
        Set<P> held = new HashSet<>();
        for (int i = 0; i < partitions.size(); i++) {
            P p = partitions.get(i);
            Long t = eventTimes.get(i);
            if (held.contains(p)) {
                continue;
            }
            if (t != null && t > bound) {
                held.add(p);
                next.put(p, t);
                continue;
            }
            taken[i] = true;
            if (t != null) {
                next.remove(p);
                last.put(p, t);
            }
        }
        return taken;
    }

    /**
     * Of the assigned partitions, those ahead of the slowest by more than half the lateness: to be paused. Every
     * other assigned partition is to be read (resumed). Forgets the partitions no longer assigned.
     */
    List<P> ahead(Collection<P> assignment, Predicate<P> mayHaveRecords) {
        next.keySet().retainAll(assignment);
        last.keySet().retainAll(assignment);
        long slowest = slowest(assignment, mayHaveRecords);
        List<P> ahead = new ArrayList<>();
        if (slowest == NONE) {
            return ahead;
        }
        for (P p : assignment) {
            Long t = time(p);
            if (t != null && (slowest == UNKNOWN || t - slowest > allowance)) {
                ahead.add(p);
            }
        }
        return ahead;
    }

    /** How many partitions it holds times of (memory: bounded by the assignment). */
    int size() {
        return Math.max(next.size(), last.size());
    }

    private long slowest(Collection<P> assignment, Predicate<P> mayHaveRecords) {
        long slowest = NONE;
        for (P p : assignment) {
            Long n = next.get(p);
            if (n != null) { // a record was seen and not taken: it has records
                slowest = Math.min(slowest, n);
            } else if (mayHaveRecords.test(p)) {
                Long l = last.get(p);
                if (l == null) {
                    return UNKNOWN;
                }
                slowest = Math.min(slowest, l);
            }
        }
        return slowest;
    }

    private Long time(P p) {
        Long n = next.get(p);
        return n != null ? n : last.get(p);
    }

    private static long saturatedAdd(long a, long b) {
        long s = a + b;
        return ((a ^ s) & (b ^ s)) < 0 ? NONE : s;
    }
}
