package io.coilgun.planner.expr;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.jexl3.JexlExpression;

/**
 * A filter or aggregation argument, compiled once. Not thread-safe (it reuses one context): each task operator
 * holds its own.
 */
public final class CompiledExpression {
    private final String source;
    private final JexlExpression expression;
    private final Expressions.EventContext context;

    CompiledExpression(String source, JexlExpression expression, List<String> columns) {
        this.source = source;
        this.expression = expression;
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < columns.size(); i++) {
            index.put(Variables.of(columns.get(i)), i);
        }
        this.context = new Expressions.EventContext(index);
    }

    /** The value of the expression for an event's column values. */
    public Object evaluate(Object[] values) {
        context.values = values;
        return expression.evaluate(context);
    }

    /** For a filter: whether the event passes (its condition is TRUE, not FALSE or NULL). */
    public boolean test(Object[] values) {
        return SqlFunctions.isTrue(evaluate(values));
    }

    public String source() {
        return source;
    }
}
