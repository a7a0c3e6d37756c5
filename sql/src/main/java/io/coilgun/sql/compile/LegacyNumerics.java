package io.coilgun.sql.compile;

import io.coilgun.sql.parser.CoilgunParser;
import io.coilgun.sql.parser.ParsedStatement;
import io.coilgun.sql.parser.SqlAlterStream;
import io.coilgun.sql.parser.SqlCreateStream;
import io.coilgun.sql.parser.SqlStreamColumn;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlNode;

/**
 * The DDL of a catalog record written before NUMERIC stream columns kept exact decimals: such a column was a double
 * precision one, and its stream's events hold doubles. {@link #asDouble} gives the statement with those columns'
 * types written {@code DOUBLE}, so the stream comes back as it was made.
 */
public final class LegacyNumerics {
    private LegacyNumerics() {
    }

    /** {@code ddl} with every NUMERIC or DECIMAL stream column's type (its modifier too) written DOUBLE. */
    public static String asDouble(String ddl) {
        List<int[]> spans = new ArrayList<>();
        for (ParsedStatement p : CoilgunParser.parse(ddl)) {
            SqlNode node = p.node();
            List<SqlStreamColumn> columns = new ArrayList<>();
            if (node instanceof SqlCreateStream cs) {
                columns.addAll(cs.columns());
            } else if (node instanceof SqlAlterStream as && as.column() != null) {
                columns.add(as.column());
            }
            for (SqlStreamColumn c : columns) {
                String type = String.join(".", c.type().getTypeName().names).toUpperCase(Locale.ROOT);
                if (type.equals("NUMERIC") || type.equals("DECIMAL")) {
                    spans.add(CoilgunParser.span(ddl, c.type().getParserPosition()));
                }
            }
        }
        StringBuilder out = new StringBuilder(ddl);
        for (int i = spans.size() - 1; i >= 0; i--) { // from the end: earlier spans keep their indexes
            out.replace(spans.get(i)[0], spans.get(i)[1], "DOUBLE");
        }
        return out.toString();
    }
}
