package io.coilgun.planner.window;

import io.coilgun.planner.event.EventView;
import io.coilgun.planner.event.GroupKeys;
import io.coilgun.planner.expr.CompiledExpression;
import io.coilgun.planner.expr.Expressions;
import io.coilgun.planner.model.StreamDef;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The operators of one task's plan that metrics share (paper 4.1.2, figure 6): the decoding of an event a reservoir
 * iterator passes, each distinct {@link Filter} and each distinct {@link GroupBy}. Every metric with the same WHERE
 * clause holds the same filter, every metric with the same group-by columns the same group-by, and each is evaluated
 * at most once per event, however many metrics read it.
 *
 * <p>"Once per event": the task plan marks each arriving event ({@link #arrived}); an iterator passing an event to
 * its subscribers decodes it through {@link #passed}, which decodes only when the event is not the one just decoded.
 * Each marks a new generation, and a shared operator keeps its result for the generation it computed it in.
 * Single-threaded, like the task plan.
 */
public final class SharedOperators {
    private List<String> columns;
    private final Map<String, Filter> filters = new HashMap<>();
    private final Map<List<Integer>, GroupBy> groupBys = new HashMap<>();
    private final Filter noFilter = new Filter(null);
    /** Incremented for each event the metrics look at. */
    private long generation;
    /** The event the metrics look at: {@link #arrivedView} or {@link #passedView}. */
    private EventView current;
    private EventView arrivedView;
    private EventView passedView;
    private long decodedSeq = Long.MIN_VALUE;

    public SharedOperators(StreamDef stream) {
        streamChanged(stream);
    }

    /** The stream has a new schema version: decode and evaluate with its columns from now on. */
    public void streamChanged(StreamDef stream) {
        columns = stream.columns().stream().map(c -> c.name()).toList();
        arrivedView = new EventView(stream);
        passedView = new EventView(stream);
        current = null;
        decodedSeq = Long.MIN_VALUE;
        generation++;
        for (Filter f : filters.values()) {
            f.compile();
        }
    }

    /** The filter of a WHERE clause ({@code null}: no WHERE, every event passes). */
    public Filter filter(String condition) {
        return condition == null ? noFilter : filters.computeIfAbsent(condition, Filter::new);
    }

    public GroupBy groupBy(int[] columns) {
        List<Integer> key = new ArrayList<>(columns.length);
        for (int c : columns) {
            key.add(c);
        }
        return groupBys.computeIfAbsent(key, k -> new GroupBy(columns.clone()));
    }

    /**
     * An event arrives at the task: the metrics look at it next ({@link #current()}).
     *
     * @param values the event {@code payload} holds, already decoded
     */
    public void arrived(byte[] payload, Object[] values) {
        arrivedView.wrap(payload, 0, payload.length, values);
        current = arrivedView;
        generation++;
    }

    /**
     * An event arrives at the task: the metrics look at it next ({@link #current()}), read in place.
     *
     * @return the event, valid until the next arrival
     */
    public EventView arrived(byte[] payload) {
        arrivedView.wrap(payload, 0, payload.length);
        current = arrivedView;
        generation++;
        return arrivedView;
    }

    /** The event that arrived last (iterators may have passed others since). */
    public EventView arrivedEvent() {
        return arrivedView;
    }

    /** The event the metrics look at: the one that arrived, or the one an iterator passes. */
    public EventView current() {
        return current;
    }

    /**
     * An iterator passes event {@code seq} (its bytes in {@code data}): read in place once for all the subscriptions
     * it is passed to. Valid until the next call.
     */
    public EventView passed(long seq, byte[] data, int off, int len) {
        if (seq != decodedSeq || current != passedView) {
            passedView.wrap(data, off, len);
            decodedSeq = seq;
            current = passedView;
            generation++;
        }
        return passedView;
    }

    /** A WHERE clause, compiled once per task and evaluated once per event. */
    public final class Filter {
        private final String condition;
        private CompiledExpression expression;
        private long evaluatedAt = -1;
        private boolean result;

        private Filter(String condition) {
            this.condition = condition;
            compile();
        }

        private void compile() {
            expression = condition == null ? null : Expressions.compile(condition, columns);
            evaluatedAt = -1;
        }

        /** Whether the current event passes (its condition is TRUE, not FALSE or NULL). */
        public boolean test() {
            if (expression == null) {
                return true;
            }
            if (evaluatedAt != generation) {
                result = expression.test(current.values());
                evaluatedAt = generation;
            }
            return result;
        }
    }

    /**
     * The group key of the current event over some columns ({@link GroupKeys}), encoded and hashed once per event
     * into a buffer reused from event to event: an array of its own only for who asks ({@link #key()}).
     */
    public final class GroupBy {
        private final int[] columns;
        private long encodedAt = -1;
        private byte[] bytes = new byte[64];
        private int length;
        private long hash;
        private long copiedAt = -1;
        private byte[] copy;
        /** The groups of the metrics with this group-by, made when the first of them opens. */
        private GroupArena arena;

        private GroupBy(int[] columns) {
            this.columns = columns;
        }

        /** The arena the metrics with this group-by keep their group states in. */
        GroupArena arena() {
            if (arena == null) {
                arena = new GroupArena(GroupArena.Budget.PROCESS);
            }
            return arena;
        }

        private void encode() {
            if (encodedAt != generation) {
                int n = GroupKeys.encode(current, columns, bytes);
                if (n > bytes.length) {
                    bytes = new byte[Math.max(n, 2 * bytes.length)];
                    n = GroupKeys.encode(current, columns, bytes);
                }
                length = n;
                hash = GroupKeys.hash(bytes, 0, n);
                encodedAt = generation;
            }
        }

        /** The current event's key in the first {@link #keyLength()} bytes; valid until the next event. */
        byte[] keyBytes() {
            encode();
            return bytes;
        }

        int keyLength() {
            encode();
            return length;
        }

        /** The current event's key as an array of its own; callers must not modify it. */
        public byte[] key() {
            encode();
            if (copiedAt != generation) {
                copy = Arrays.copyOf(bytes, length);
                copiedAt = generation;
            }
            return copy;
        }

        /** {@link KnownGroups#hash} of the key: the group arenas use it. */
        long hash() {
            encode();
            return hash;
        }
    }
}
