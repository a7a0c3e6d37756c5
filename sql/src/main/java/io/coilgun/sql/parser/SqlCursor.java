package io.coilgun.sql.parser;

import java.util.List;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSpecialOperator;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * A named cursor statement as drivers send them for server-side cursors (psycopg2's and psycopg 3's named cursors):
 * {@code DECLARE name [BINARY] [NO SCROLL] CURSOR [WITH | WITHOUT HOLD] FOR query}, {@code FETCH [NEXT | FORWARD
 * [n | ALL] | n | ALL] [FROM | IN] name}, {@code CLOSE name | ALL}.
 */
public final class SqlCursor extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("CURSOR STATEMENT", SqlKind.OTHER);

    public enum Kind { DECLARE, FETCH, CLOSE }

    private final Kind kind;
    private final String name;
    private final SqlNode query;
    private final SqlParserPos queryStart;
    private final boolean hold;
    private final long count;

    /**
     * @param name the cursor, null for CLOSE ALL
     * @param query DECLARE's query, its first token at {@code queryStart}
     * @param count FETCH's row count, -1 for ALL
     */
    public SqlCursor(SqlParserPos pos, Kind kind, String name, SqlNode query, SqlParserPos queryStart, boolean hold,
            long count) {
        super(pos);
        this.kind = kind;
        this.name = name;
        this.query = query;
        this.queryStart = queryStart;
        this.hold = hold;
        this.count = count;
    }

    public Kind kind() {
        return kind;
    }

    public String name() {
        return name;
    }

    public SqlNode query() {
        return query;
    }

    /** DECLARE's query as written in {@code sql} (the string this was parsed from): from its first token on. */
    public String queryText(String sql) {
        String rest = CoilgunParser.textFrom(sql, queryStart).trim();
        return rest.endsWith(";") ? rest.substring(0, rest.length() - 1).trim() : rest;
    }

    public boolean hold() {
        return hold;
    }

    public long count() {
        return count;
    }

    @Override
    public SqlOperator getOperator() {
        return OPERATOR;
    }

    @Override
    public List<SqlNode> getOperandList() {
        return query == null ? List.of() : List.of(query);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
        writer.keyword(kind.name());
        if (name != null) {
            writer.identifier(name, true);
        }
    }
}
