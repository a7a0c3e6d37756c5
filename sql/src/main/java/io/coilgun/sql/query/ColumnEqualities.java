package io.coilgun.sql.query;

import io.coilgun.planner.model.ColumnType;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntFunction;
import org.apache.calcite.DataContext;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexDynamicParam;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;

/**
 * The filters {@code column = constant} (a literal or a parameter, either side) that Calcite pushes into a table's
 * scan, with each constant as the column's stored Java value. Calcite applies every filter again, so a table may use
 * them only to narrow what it reads: a point read of one metric group, events left out of a stream scan.
 */
final class ColumnEqualities {
    private ColumnEqualities() {
    }

    /** A filter {@code column = value}. */
    record Equality(int column, Object value) {
    }

    /**
     * @param typeOf the stored type of a column of the scan, or null for a column whose equalities are not wanted
     */
    static List<Equality> of(DataContext root, List<RexNode> filters, IntFunction<ColumnType> typeOf) {
        List<Equality> out = new ArrayList<>();
        for (RexNode f : filters) {
            if (!(f instanceof RexCall call) || call.getKind() != SqlKind.EQUALS) {
                continue;
            }
            RexNode a = call.getOperands().get(0);
            RexNode b = call.getOperands().get(1);
            if (!(a instanceof RexInputRef)) {
                RexNode t = a;
                a = b;
                b = t;
            }
            if (a instanceof RexInputRef ref) {
                ColumnType type = typeOf.apply(ref.getIndex());
                Object value = type == null ? null : constant(root, b, type);
                if (value != null) {
                    out.add(new Equality(ref.getIndex(), value));
                }
            }
        }
        return out;
    }

    /**
     * A literal or parameter as a stored value's Java class (timestamps as micros), or null when it is neither (or
     * not surely of that type).
     */
    private static Object constant(DataContext root, RexNode node, ColumnType type) {
        Object v;
        if (node instanceof RexLiteral lit && type == ColumnType.TIMESTAMP) {
            return lit.isNull() ? null : EngineTimestamps.micros(lit);
        } else if (node instanceof RexLiteral lit) {
            v = lit.getValue2();
        } else if (node instanceof RexDynamicParam p) {
            v = root.get("?" + p.getIndex()); // a timestamp in the engine's microseconds (ParameterValues)
        } else {
            return null;
        }
        if (v == null) {
            return null;
        }
        try {
            return switch (type) {
                case VARCHAR -> v instanceof String ? v : null;
                case BOOLEAN -> v instanceof Boolean ? v : null;
                case INTEGER, BIGINT -> v instanceof Number n && new BigDecimal(n.toString()).scale() <= 0
                        ? (Object) n.longValue() : null;
                case DOUBLE -> v instanceof Number n ? (Object) n.doubleValue() : null;
                case TIMESTAMP -> v instanceof Number n ? (Object) n.longValue() : null;
                case NUMERIC -> null; // read through the whole scan, compared by Calcite's filter
            };
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
