package io.coilgun.server.session;

import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.RowStream;
import io.coilgun.planner.error.SqlState;
import io.coilgun.sql.compile.AlterStreamStatement;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.CopyStatement;
import io.coilgun.sql.compile.CopyToStatement;
import io.coilgun.sql.compile.CreateMetricStatement;
import io.coilgun.sql.compile.CreateSinkStatement;
import io.coilgun.sql.compile.CreateStreamStatement;
import io.coilgun.sql.compile.CursorStatement;
import io.coilgun.sql.compile.DropMetricStatement;
import io.coilgun.sql.compile.DropSinkStatement;
import io.coilgun.sql.compile.InsertStatement;
import io.coilgun.sql.compile.SetStatement;
import io.coilgun.sql.compile.SqlStatement;
import io.coilgun.sql.compile.StatementCompiler;
import io.coilgun.sql.compile.TransactionStatement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * {@code COPY (statement) TO STDOUT}: the inner statement is compiled and run as any statement is, and its rows (a
 * result, or a stream such as a SUBSCRIBE's) are sent as COPY data in the format the options give. A statement that
 * returns no rows is refused before it runs (bad input changes nothing).
 */
final class CopyTo {
    private final StatementCompiler compiler;

    CopyTo(StatementCompiler compiler) {
        this.compiler = compiler;
    }

    /**
     * @param statement the COPY statement as parsed (its inner statement is compiled from it)
     * @param runInner runs the inner statement as the session runs any statement
     */
    CompletableFuture<QueryResult> start(CopyToStatement copyTo, SqlStatement statement, List<Object> parameters,
            Function<CompiledStatement, CompletableFuture<QueryResult>> runInner) {
        CopyFormat format = StreamCopyIn.format(copyTo.options());
        CompiledStatement inner = compiler.compileCopySource(statement, copyTo, parameters);
        if (!returnsRows(inner)) {
            throw new PgException(SqlState.FEATURE_NOT_SUPPORTED.code(), "COPY (...) TO STDOUT needs a statement "
                    + "that returns rows (SUBSCRIBE, SELECT, SHOW, EXPLAIN or INSERT ... RETURNING)");
        }
        return runInner.apply(inner).thenApply(r -> QueryResult.copyOut(r.columns(),
                r.stream() != null ? r.stream() : RowStream.of(r.rows()), format));
    }

    /** Whether COPY TO may send a statement's result: whether it has rows. */
    static boolean returnsRows(CompiledStatement inner) {
        return !(inner instanceof CreateStreamStatement || inner instanceof AlterStreamStatement
                || inner instanceof CreateMetricStatement || inner instanceof DropMetricStatement
                || inner instanceof CreateSinkStatement || inner instanceof DropSinkStatement
                || inner instanceof SetStatement || inner instanceof TransactionStatement
                || inner instanceof CopyStatement || inner instanceof CopyToStatement
                || inner instanceof CursorStatement
                || inner instanceof InsertStatement ins && !ins.returning());
    }
}
