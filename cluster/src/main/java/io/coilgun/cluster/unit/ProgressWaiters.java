package io.coilgun.cluster.unit;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * Who waits for a task of the unit to reach an offset ({@link ProcessorUnit#reached}), and when they may go on. Only
 * the unit's thread touches it: it registers a waiter from a command and {@linkplain #check checks} them after each
 * round of polls, never per event. With nobody waiting a check is one empty-map test.
 */
final class ProgressWaiters {
    /** What {@link Progress} says of a task the unit does not hold, or holds stopped: it goes no further here. */
    static final long GONE = -1;

    /** Where the unit's tasks are: a task's next offset, or {@link #GONE}. */
    @FunctionalInterface
    interface Progress {
        long nextOffset(TopicPartition tp);
    }

    private record Waiter(long offset, CompletableFuture<Long> done) {
    }

    private final Map<TopicPartition, List<Waiter>> waiting = new HashMap<>();

    /**
     * Completes {@code done} once task {@code tp} applied every record before {@code offset}, with its next offset;
     * at once when it has, or when it is {@link #GONE} (with {@code offset} then).
     */
    void await(TopicPartition tp, long offset, CompletableFuture<Long> done, Progress progress) {
        Waiter w = new Waiter(offset, done);
        if (!completed(w, progress.nextOffset(tp))) {
            waiting.computeIfAbsent(tp, k -> new ArrayList<>(1)).add(w);
        }
    }

    /** Completes the waiters whose task reached their offset or is gone. */
    void check(Progress progress) {
        if (waiting.isEmpty()) {
            return;
        }
        for (Iterator<Map.Entry<TopicPartition, List<Waiter>>> it = waiting.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<TopicPartition, List<Waiter>> e = it.next();
            long next = progress.nextOffset(e.getKey());
            e.getValue().removeIf(w -> completed(w, next));
            if (e.getValue().isEmpty()) {
                it.remove();
            }
        }
    }

    /** The unit stops: its tasks go no further, every waiter goes on. */
    void releaseAll() {
        check(tp -> GONE);
    }

    /** How many wait (tests). */
    int size() {
        int n = 0;
        for (List<Waiter> w : waiting.values()) {
            n += w.size();
        }
        return n;
    }

    private static boolean completed(Waiter w, long next) {
        if (next == GONE) {
            w.done.complete(w.offset);
        } else if (next >= w.offset) {
            w.done.complete(next);
        } else {
            return false;
        }
        return true;
    }
}
