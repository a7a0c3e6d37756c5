package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.Statement;
import io.coilgun.sql.compile.SqlStatement;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One statement of a query string as the SQL front door parsed it, (once prepared) its parameter types, and the
 * result columns the client was last told (Describe), null before any: an execution whose columns would differ is
 * refused as Postgres refuses it (a metric was created or dropped since: RETURNING * changed). {@code source} is the
 * whole query string it came from, comments and all, as pg_stat_activity shows it.
 */
record ParsedSqlStatement(SqlStatement statement, List<PgType> parameterTypes,
        AtomicReference<List<Column>> described, String source) implements Statement {
    ParsedSqlStatement(SqlStatement statement, String source) {
        this(statement, List.of(), new AtomicReference<>(), source);
    }

    @Override
    public String sql() {
        return statement.text();
    }

    ParsedSqlStatement withParameterTypes(List<PgType> types) {
        return new ParsedSqlStatement(statement, List.copyOf(types), described, source);
    }
}
