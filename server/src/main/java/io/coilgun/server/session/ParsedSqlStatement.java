package io.coilgun.server.session;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.Statement;
import io.coilgun.sql.compile.SqlStatement;
import io.coilgun.sql.parser.PgSyntax;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One statement of a query string as the SQL front door parsed it, (once prepared) its parameter types, and the
 * result columns the client was last told (Describe), null before any: an execution whose columns would differ is
 * refused as Postgres refuses it (a metric was created or dropped since: RETURNING * changed). {@code source} is the
 * whole query string it came from, comments and all, as pg_stat_activity shows it; {@code rewritten} the text the
 * statement was parsed from, whose positions {@link #clientPosition} maps back to {@code source}'s.
 */
record ParsedSqlStatement(SqlStatement statement, List<PgType> parameterTypes,
        AtomicReference<List<Column>> described, String source, PgSyntax.Rewritten rewritten) implements Statement {
    ParsedSqlStatement(SqlStatement statement, String source, PgSyntax.Rewritten rewritten) {
        this(statement, List.of(), new AtomicReference<>(), source, rewritten);
    }

    int clientPosition(int position) {
        return rewritten.originalPosition(position);
    }

    @Override
    public String sql() {
        return statement.text();
    }

    ParsedSqlStatement withParameterTypes(List<PgType> types) {
        return new ParsedSqlStatement(statement, List.copyOf(types), described, source, rewritten);
    }
}
