package io.coilgun.sql.parser;

import org.apache.calcite.sql.SqlNode;

/**
 * One statement of a query string, as returned by {@link CoilgunParser#parse(String)}.
 *
 * @param node the parsed statement
 * @param text the statement's own text: from its first token to its last token inclusive (no
 *     surrounding whitespace, comments or {@code ;})
 * @param position 1-based character offset of {@code text} in the whole query string
 * @param parameterNumbers the Postgres number ($n) of each Calcite dynamic parameter ({@code ?}) of the whole
 *     query string by its index, 0 for a {@code ?} that is no parameter (see {@link ParameterMarkers})
 */
public record ParsedStatement(SqlNode node, String text, int position, int[] parameterNumbers) {
    public ParsedStatement(SqlNode node, String text, int position) {
        this(node, text, position, new int[0]);
    }

    /** The number ($n) of dynamic parameter {@code index}, or 0 when it is no parameter. */
    public int parameterNumber(int index) {
        return index < parameterNumbers.length ? parameterNumbers[index] : 0;
    }

    /** The highest $n in the whole query string (0 when none). */
    public int parameterCount() {
        int max = 0;
        for (int n : parameterNumbers) {
            max = Math.max(max, n);
        }
        return max;
    }
}
