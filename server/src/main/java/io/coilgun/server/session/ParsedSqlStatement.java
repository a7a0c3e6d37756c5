package io.coilgun.server.session;

import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.Statement;
import io.coilgun.sql.compile.SqlStatement;
import java.util.List;

/** One statement of a query string as the SQL front door parsed it, and (once prepared) its parameter types. */
record ParsedSqlStatement(SqlStatement statement, List<PgType> parameterTypes) implements Statement {
    @Override
    public String sql() {
        return statement.text();
    }

    ParsedSqlStatement withParameterTypes(List<PgType> types) {
        return new ParsedSqlStatement(statement, List.copyOf(types));
    }
}
