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
 * {@code DECLARE name [BINARY] [NO SCROLL] CURSOR [WITH | WITHOUT HOLD] FOR query}, {@code FETCH | MOVE [direction]
 * [FROM | IN] name} (NEXT, PRIOR, FIRST, LAST, ABSOLUTE n, RELATIVE n, n, ALL, FORWARD [n | ALL], BACKWARD [n | ALL]
 * as {@link Direction} and a count), {@code CLOSE name | ALL}.
 */
public final class SqlCursor extends SqlCall {
    public static final SqlOperator OPERATOR = new SqlSpecialOperator("CURSOR STATEMENT", SqlKind.OTHER);

    public enum Kind { DECLARE, FETCH, MOVE, CLOSE }

    /**
     * Where FETCH and MOVE go: FORWARD or BACKWARD by {@code count} rows ({@link #ALL}: all; a negative count goes the
     * other way), to row {@code count} (ABSOLUTE; negative counts from the end: LAST is -1, FIRST 1), or {@code count}
     * rows from the current one (RELATIVE).
     */
    public enum Direction { FORWARD, BACKWARD, ABSOLUTE, RELATIVE }

    /** FETCH ALL's count. */
    public static final long ALL = Long.MAX_VALUE;

    private final Kind kind;
    private final String name;
    private final SqlNode query;
    private final SqlParserPos queryStart;
    private final boolean hold;
    private final boolean noScroll;
    private final Direction direction;
    private final long count;

    /**
     * @param name the cursor, null for CLOSE ALL
     * @param query DECLARE's query, its first token at {@code queryStart}
     * @param noScroll DECLARE … NO SCROLL: FETCH and MOVE go forward only
     * @param count FETCH's or MOVE's row count (see {@link Direction}), {@link #ALL} for ALL
     */
    public SqlCursor(SqlParserPos pos, Kind kind, String name, SqlNode query, SqlParserPos queryStart, boolean hold,
            boolean noScroll, Direction direction, long count) {
        super(pos);
        this.kind = kind;
        this.name = name;
        this.query = query;
        this.queryStart = queryStart;
        this.hold = hold;
        this.noScroll = noScroll;
        this.direction = direction;
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

    public boolean noScroll() {
        return noScroll;
    }

    public Direction direction() {
        return direction;
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
