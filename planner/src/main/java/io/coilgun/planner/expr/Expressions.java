package io.coilgun.planner.expr;

import java.util.List;
import java.util.Map;
import org.apache.commons.jexl3.JexlBuilder;
import org.apache.commons.jexl3.JexlContext;
import org.apache.commons.jexl3.JexlEngine;
import org.apache.commons.jexl3.JexlExpression;
import org.apache.commons.jexl3.JexlFeatures;
import org.apache.commons.jexl3.introspection.JexlPermissions;

/**
 * Compiles the JEXL translations of SQL expressions (filters and aggregation arguments). Expressions see the
 * event's columns as variables and SQL's semantics through the {@code sql:} namespace ({@link SqlFunctions}); they
 * cannot reach anything else (no other classes, no side effects, no loops). One engine for the process: JEXL
 * engines are thread-safe, and compiled expressions are immutable.
 */
public final class Expressions {
    private static final JexlEngine ENGINE = new JexlBuilder()
            .namespaces(Map.of("sql", SqlFunctions.class))
            .permissions(JexlPermissions.RESTRICTED.compose("io.coilgun.planner.expr.*"))
            .features(new JexlFeatures().sideEffect(false).sideEffectGlobal(false).loops(false).lambda(false)
                    .newInstance(false).structuredLiteral(false).script(false).namespaceTest("sql"::equals))
            .strict(true)
            .silent(false)
            .cache(256)
            .create();

    private Expressions() {
    }

    /**
     * Compiles {@code jexl} over the given column names (variables).
     *
     * @throws IllegalArgumentException if it does not compile
     */
    public static CompiledExpression compile(String jexl, List<String> columns) {
        try {
            JexlExpression e = ENGINE.createExpression(jexl);
            return new CompiledExpression(jexl, e, columns);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("cannot compile expression " + jexl + ": " + e.getMessage(), e);
        }
    }

    /** The event's column values as JEXL variables, without copying them into a map. */
    static final class EventContext implements JexlContext {
        private final Map<String, Integer> index;
        Object[] values;

        EventContext(Map<String, Integer> index) {
            this.index = index;
        }

        @Override
        public Object get(String name) {
            Integer i = index.get(name);
            return i == null || i >= values.length ? null : values[i];
        }

        @Override
        public void set(String name, Object value) {
            throw new UnsupportedOperationException("expressions are read-only");
        }

        @Override
        public boolean has(String name) {
            return index.containsKey(name);
        }
    }
}
