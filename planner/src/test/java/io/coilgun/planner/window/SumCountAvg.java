package io.coilgun.planner.window;

import io.coilgun.planner.agg.Aggregator;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.ColumnType;

/** The tests' metric: SUM(amount), COUNT(*), AVG(amount) of a double column (column 3), and its row layouts. */
final class SumCountAvg {
    static final int SUM = 0;
    static final int COUNT = 1;
    static final int AVG = 2;
    static final AggregationKind[] KINDS = {AggregationKind.SUM, AggregationKind.COUNT_STAR, AggregationKind.AVG};
    /** No aggregation shares another's compact state. */
    static final int[] UNSHARED = {-1, -1, -1};
    /** AVG shares SUM's compact state, as WindowMetric lays out SUM and AVG of one column. */
    static final int[] SHARED = {-1, -1, SUM};

    private SumCountAvg() {
    }

    static Aggregator[] aggregators() {
        return new Aggregator[] {
            Aggregator.of(new AggregationDef(AggregationKind.SUM, 3, "total", ColumnType.DOUBLE), ColumnType.DOUBLE),
            Aggregator.of(new AggregationDef(AggregationKind.COUNT_STAR, -1, "n", ColumnType.BIGINT), ColumnType.BIGINT),
            Aggregator.of(new AggregationDef(AggregationKind.AVG, 3, "avg", ColumnType.DOUBLE), ColumnType.DOUBLE)};
    }

    /** Where each aggregation's full state starts in a bucket's aggregates. */
    static int[] fullSlots(Aggregator[] aggs) {
        int[] full = new int[aggs.length];
        int at = 0;
        for (int i = 0; i < aggs.length; i++) {
            full[i] = at;
            at += aggs[i].stateBytes();
        }
        return full;
    }

    /** A bucket's aggregates in full form, in bytes. */
    static int aggBytes(Aggregator[] aggs) {
        int[] full = fullSlots(aggs);
        return full[aggs.length - 1] + aggs[aggs.length - 1].stateBytes();
    }

    static RowLayout layout(Aggregator[] aggs, boolean tumbling, int[] shares) {
        return new RowLayout(aggs, KINDS, fullSlots(aggs), aggBytes(aggs), tumbling, shares);
    }
}
