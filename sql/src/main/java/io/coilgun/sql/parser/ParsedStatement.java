package io.coilgun.sql.parser;

import org.apache.calcite.sql.SqlNode;

/**
 * One statement of a query string, as returned by {@link CoilgunParser#parse(String)}.
 *
 * @param node the parsed statement
 * @param text the statement's own text: from its first token to its last token inclusive (no
 *     surrounding whitespace, comments or {@code ;})
 * @param position 1-based character offset of {@code text} in the whole query string
 */
public record ParsedStatement(SqlNode node, String text, int position) {
}
