package io.coilgun.planner.window;

import io.coilgun.planner.agg.Aggregator;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.MetricDef;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The two forms of one group's state of a {@link WindowMetric}.
 * <ul>
 *   <li><b>Compact</b>, a fixed-size slot of the metric's slab ({@link MetricSlots}): the clock, for tumbling windows
 *       the one bucket it holds ({@link #NO_BUCKET} for none), then each aggregation's compact state
 *       ({@link Aggregator#compactBytes}: an exact double sum in two partials, not ten). The usual case.</li>
 *   <li><b>Wide</b>, a {@link GroupState} row of its own: any number of tumbling buckets, exact sums in full. A
 *       group's state widens when an event does not fit the compact form (a third partial, a non-finite value, a
 *       second tumbling bucket) and narrows again at a commit when it fits.</li>
 * </ul>
 * Both forms are the same multiset of events: results do not depend on the form.
 *
 * <pre>
 * compact: long clock, [long bucket: TUMBLING only], per aggregation its compact state (COUNT(DISTINCT): long)
 * </pre>
 */
final class RowLayout {
    static final long NO_BUCKET = Long.MIN_VALUE;

    private final Aggregator[] aggregators;
    private final AggregationKind[] kinds;
    private final boolean tumbling;
    /** Per aggregation, where its full state starts in a bucket's aggregates of a wide row. */
    private final int[] slots;
    private final int aggBytes;
    /** Per aggregation, where its compact state starts in a slot. */
    private final int[] compactSlots;
    /**
     * Per aggregation, the earlier aggregation whose compact state it shares (the same state of the same argument:
     * SUM and AVG of a double column), or -1. The full form keeps a state for each.
     */
    private final int[] sharesStateOf;
    private final int stride;

    /**
     * @param aggregators per aggregation its aggregator, null for candidates (no slot) and COUNT(DISTINCT) (a long)
     * @param slots per aggregation where its full state starts ({@code aggBytes} in all)
     * @param sharesStateOf per aggregation, an earlier one whose compact state it may share, or -1
     */
    RowLayout(Aggregator[] aggregators, AggregationKind[] kinds, int[] slots, int aggBytes, boolean tumbling,
            int[] sharesStateOf) {
        this.aggregators = aggregators;
        this.kinds = kinds;
        this.slots = slots;
        this.aggBytes = aggBytes;
        this.tumbling = tumbling;
        this.compactSlots = new int[aggregators.length];
        this.sharesStateOf = sharesStateOf.clone();
        int at = tumbling ? 16 : 8;
        for (int i = 0; i < aggregators.length; i++) {
            if (sharesStateOf[i] >= 0) {
                compactSlots[i] = compactSlots[sharesStateOf[i]];
                continue;
            }
            compactSlots[i] = at;
            if (aggregators[i] != null) {
                at += aggregators[i].compactBytes();
            } else if (kinds[i] == AggregationKind.COUNT_DISTINCT) {
                at += 8;
            }
        }
        this.stride = at;
    }

    /**
     * Per aggregation of {@code def}, an earlier one whose compact state it can share, or -1: aggregations of the same
     * column (no expression) whose aggregators keep the same state ({@link Aggregator#sameStateAs}: SUM and AVG of a
     * double column keep a count and an exact sum each).
     */
    static int[] sharedStates(MetricDef def, Aggregator[] aggregators) {
        int[] shares = new int[aggregators.length];
        Arrays.fill(shares, -1);
        for (int i = 0; i < aggregators.length; i++) {
            var a = def.aggregations().get(i);
            for (int j = 0; j < i && shares[i] < 0; j++) {
                var b = def.aggregations().get(j);
                if (aggregators[i] != null && aggregators[j] != null && shares[j] < 0 && a.expression() == null
                        && b.expression() == null && a.argument() >= 0 && a.argument() == b.argument()
                        && aggregators[i].sameStateAs(aggregators[j])) {
                    shares[i] = j;
                }
            }
        }
        return shares;
    }

    /** Bytes of a compact slot. */
    int stride() {
        return stride;
    }

    /** Where aggregation {@code i}'s compact state starts in a slot. */
    int compactSlot(int i) {
        return compactSlots[i];
    }

    /** Whether aggregation {@code i} shares an earlier one's compact state (applying that one applies it). */
    boolean sharesState(int i) {
        return sharesStateOf[i] >= 0;
    }

    /** The aggregation whose compact state {@code i} shares, or -1. */
    int sharesStateOf(int i) {
        return sharesStateOf[i];
    }

    /** Bytes of one bucket's aggregates in full form. */
    int aggBytes() {
        return aggBytes;
    }

    /** A group with no state: no clock, no bucket. */
    void clear(ByteBuffer slab, int off) {
        Arrays.fill(slab.array(), off, off + stride, (byte) 0);
        slab.putLong(off, Long.MIN_VALUE);
        if (tumbling) {
            slab.putLong(off + 8, NO_BUCKET);
        }
    }

    /**
     * Whether the compact slot at {@code off} holds the aggregates of {@code bucket} (the aggregations'
     * {@link #compactSlot}s are relative to {@code off}), taking the bucket into an empty tumbling slot; false when it
     * holds another bucket (the state must widen).
     */
    boolean holdsBucket(ByteBuffer slab, int off, long bucket) {
        if (!tumbling) {
            return true;
        }
        long held = slab.getLong(off + 8);
        if (held == bucket) {
            return true;
        }
        if (held == NO_BUCKET) {
            slab.putLong(off + 8, bucket);
            return true;
        }
        return false;
    }

    /** The tumbling bucket the compact slot holds, or {@link #NO_BUCKET}. */
    long bucket(ByteBuffer slab, int off) {
        return tumbling ? slab.getLong(off + 8) : 0;
    }

    /** Empties a tumbling slot's bucket (no clock in reach of it any more); the clock stays. */
    void dropBucket(ByteBuffer slab, int off) {
        Arrays.fill(slab.array(), off + 16, off + stride, (byte) 0);
        slab.putLong(off + 8, NO_BUCKET);
    }

    /** The wide row of the compact slot at {@code off}. */
    ByteBuffer widen(ByteBuffer slab, int off) {
        long bucket = bucket(slab, off);
        ByteBuffer row = GroupState.empty(aggBytes, !tumbling);
        if (tumbling && bucket != NO_BUCKET) {
            row = GroupState.withBucket(row, bucket, aggBytes);
        }
        GroupState.clock(row, slab.getLong(off));
        if (bucket != NO_BUCKET) {
            widenAggregates(slab, off, row, row.capacity() - aggBytes);
        }
        return row;
    }

    /**
     * The full-form aggregates of {@code bucket} of the compact slot at {@code off}, written into {@code window} from
     * 0 (zeros when the slot holds another bucket).
     */
    void copyBucket(ByteBuffer slab, int off, long bucket, ByteBuffer window) {
        if (tumbling && slab.getLong(off + 8) != bucket) {
            Arrays.fill(window.array(), 0, aggBytes, (byte) 0);
            return;
        }
        widenAggregates(slab, off, window, 0);
    }

    private void widenAggregates(ByteBuffer slab, int off, ByteBuffer into, int base) {
        for (int i = 0; i < aggregators.length; i++) {
            if (aggregators[i] != null) {
                aggregators[i].widen(slab, off + compactSlots[i], into, base + slots[i]);
            } else if (kinds[i] == AggregationKind.COUNT_DISTINCT) {
                into.putLong(base + slots[i], slab.getLong(off + compactSlots[i]));
            }
        }
    }

    /** Writes the compact form of wide row {@code row} at {@code off} when it has one; false (slot undefined) if not. */
    boolean narrow(ByteBuffer row, ByteBuffer slab, int off) {
        int buckets = GroupState.buckets(row);
        if (tumbling ? buckets > 1 : buckets != 1) {
            return false;
        }
        slab.putLong(off, GroupState.clock(row));
        if (tumbling) {
            if (buckets == 0) {
                Arrays.fill(slab.array(), off + 16, off + stride, (byte) 0);
                slab.putLong(off + 8, NO_BUCKET);
                return true;
            }
            slab.putLong(off + 8, GroupState.bucketId(row, 0, aggBytes));
        }
        int base = GroupState.HEADER + 8;
        for (int i = 0; i < aggregators.length; i++) {
            if (sharesStateOf[i] >= 0) {
                continue; // the full form's copy of a shared state: the same as the one narrowed
            }
            if (aggregators[i] != null) {
                if (!aggregators[i].narrow(row, base + slots[i], slab, off + compactSlots[i])) {
                    return false;
                }
            } else if (kinds[i] == AggregationKind.COUNT_DISTINCT) {
                slab.putLong(off + compactSlots[i], row.getLong(base + slots[i]));
            }
        }
        return true;
    }
}
