package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.pgwire.codec.BackendMessage.CommandComplete;
import io.coilgun.pgwire.codec.BackendMessage.NoticeResponse;
import io.coilgun.pgwire.codec.BackendMessage.EmptyQueryResponse;
import io.coilgun.pgwire.codec.BackendMessage.ErrorResponse;
import io.coilgun.pgwire.codec.BackendMessage.RowDescription;
import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.CopyIn;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.Statement;
import io.netty.channel.ChannelHandlerContext;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One simple Query message: parse the text, then execute its statements one after another, writing
 * {@code RowDescription, DataRow*, CommandComplete} per statement, or an ErrorResponse for the first
 * failure, which ends the query. The caller writes ReadyForQuery when {@link Listener#finished} is called.
 *
 * <p>Everything here runs on the channel's event loop: a statement's stage may complete on any thread, and
 * its result is handed back to the event loop before it is written or the next statement starts.
 */
final class SimpleQueryExecution {
    private static final Logger LOG = LoggerFactory.getLogger(SimpleQueryExecution.class);
    /** Flush a long result every this many rows, so the client can start reading. */
    static final int FLUSH_EVERY_ROWS = 1024;

    /** Told (on the event loop) when the query has ended. */
    interface Listener {
        /** @param fatal a FATAL error was sent; the connection must end without ReadyForQuery */
        void finished(boolean fatal);

        /** The result stage completed after the event loop was shut down; there is nothing left to do. */
        void abandoned();

        /**
         * A statement is {@code COPY ... FROM STDIN}: the listener receives the data and calls
         * {@link #copyEnded} when the copy has ended.
         */
        void copyIn(CopyIn copyIn, SimpleQueryExecution execution);

        /** A streamed result is being sent ({@code rows}), or has ended (null). */
        default void streaming(StreamedRows rows) {
        }
    }

    private final ChannelHandlerContext ctx;
    private final Session session;
    private final String sql;
    private final Listener listener;
    private List<Statement> statements;
    /** Drops prepared statements (a DEALLOCATE; see {@link Deallocate}). */
    private final Consumer<String> deallocate;
    /** The statement to run after a COPY. */
    private int next;

    SimpleQueryExecution(ChannelHandlerContext ctx, Session session, String sql, Listener listener,
            Consumer<String> deallocate) {
        this.deallocate = deallocate;
        this.ctx = ctx;
        this.session = session;
        this.sql = sql;
        this.listener = listener;
    }

    void start() {
        String target = Deallocate.target(sql);
        if (target != null) {
            try {
                deallocate.accept(target);
            } catch (RuntimeException e) {
                fail(e);
                return;
            }
            ctx.write(new CommandComplete(Deallocate.tag(target)));
            listener.finished(false);
            return;
        }
        try {
            statements = session.parse(sql);
        } catch (Exception e) { // also checked exceptions a session throws sneakily
            fail(e);
            return;
        }
        if (statements == null || statements.isEmpty()) {
            ctx.write(EmptyQueryResponse.INSTANCE);
            listener.finished(false);
            return;
        }
        execute(0);
    }

    private void execute(int index) {
        if (index == statements.size()) {
            listener.finished(false);
            return;
        }
        CompletionStage<QueryResult> stage;
        try {
            stage = session.execute(statements.get(index), List.of());
            if (stage == null) {
                throw new IllegalStateException("Session.execute returned no result stage");
            }
        } catch (Exception e) {
            fail(e);
            return;
        }
        stage.whenComplete((result, error) -> {
            try {
                ctx.executor().execute(() -> completed(index, result, error));
            } catch (RejectedExecutionException shutDown) {
                listener.abandoned();
            }
        });
    }

    private void completed(int index, QueryResult result, Throwable error) {
        if (!ctx.channel().isActive()) {
            listener.finished(false); // the client is gone; nobody reads the rest
            return;
        }
        if (error != null) {
            fail(ErrorResponses.unwrap(error));
            return;
        }
        if (result != null && result.copyIn() != null) {
            next = index + 1;
            listener.copyIn(result.copyIn(), this);
            return;
        }
        if (result != null && result.stream() != null) {
            stream(index + 1, result);
            return;
        }
        try {
            writeResult(result);
        } catch (Exception e) { // e.g. a value that does not fit its column type
            fail(e);
            return;
        }
        ctx.flush();
        execute(index + 1);
    }

    /**
     * A streamed result (SUBSCRIBE, COPY (query) TO STDOUT): its rows go out as they come, then the query goes on
     * with statement {@code nextIndex}, or ends at its error (a cancel, a subscriber that fell behind).
     */
    private void stream(int nextIndex, QueryResult result) {
        StreamedRows rows;
        try {
            if (result.notices() != null) {
                for (String notice : result.notices()) {
                    ctx.write(new NoticeResponse(SqlStates.SUCCESSFUL_COMPLETION, notice));
                }
            }
            if (result.copyOut() == null && result.columns() != null && !result.columns().isEmpty()) {
                ctx.write(new RowDescription(result.columns()));
            }
            rows = new StreamedRows(ctx, result, WireValues.ALL_TEXT);
        } catch (Exception e) {
            try {
                result.stream().close();
            } catch (RuntimeException ignored) {
                // the error that led here is what the client hears
            }
            fail(e);
            return;
        }
        listener.streaming(rows);
        rows.run(0, (suspended, error) -> {
            listener.streaming(null);
            if (error != null) {
                fail(error);
            } else if (!ctx.channel().isActive()) {
                listener.finished(false);
            } else {
                execute(nextIndex);
            }
        });
    }

    /** The COPY statement ended (on the event loop): with its result (CommandComplete) or its error. */
    void copyEnded(QueryResult result, Throwable error) {
        if (!ctx.channel().isActive()) {
            listener.finished(false);
            return;
        }
        if (error != null) {
            fail(ErrorResponses.unwrap(error));
            return;
        }
        try {
            writeResult(result);
        } catch (Exception e) {
            fail(e);
            return;
        }
        ctx.flush();
        execute(next);
    }

    private void writeResult(QueryResult result) {
        if (result == null) {
            throw new IllegalStateException("Session.execute completed without a result");
        }
        List<Column> columns = result.columns() == null ? List.of() : result.columns();
        List<Object[]> rows = result.rows() == null ? List.of() : result.rows();
        if (columns.isEmpty() && !rows.isEmpty()) {
            throw new IllegalStateException("result has rows but no columns");
        }
        if (result.notices() != null) {
            for (String notice : result.notices()) {
                ctx.write(new NoticeResponse(SqlStates.SUCCESSFUL_COMPLETION, notice));
            }
        }
        if (!columns.isEmpty()) {
            ctx.write(new RowDescription(columns));
        }
        int written = 0;
        for (Object[] row : rows) {
            ctx.write(WireValues.dataRow(columns, row, WireValues.ALL_TEXT));
            if (++written % FLUSH_EVERY_ROWS == 0) {
                ctx.flush();
            }
        }
        String tag = result.commandTag();
        if (tag == null) {
            tag = columns.isEmpty() ? "" : "SELECT " + rows.size();
        }
        ctx.write(new CommandComplete(tag));
    }

    private void fail(Throwable error) {
        ErrorResponse response;
        if (error instanceof PgException) {
            response = ErrorResponses.of((PgException) error);
        } else {
            LOG.warn("Internal error running query on {}: {}", ctx.channel().remoteAddress(), abbreviate(sql),
                    error);
            response = ErrorResponses.internal(error, ErrorResponse.ERROR);
        }
        ctx.write(response);
        boolean fatal = ErrorResponse.FATAL.equals(response.severity());
        if (!fatal) {
            session.statementFailed();
        }
        listener.finished(fatal);
    }

    private static String abbreviate(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }
}
