package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.pgwire.codec.BackendMessage.CommandComplete;
import io.coilgun.pgwire.codec.BackendMessage.Empty;
import io.coilgun.pgwire.codec.BackendMessage.EmptyQueryResponse;
import io.coilgun.pgwire.codec.BackendMessage.NoticeResponse;
import io.coilgun.pgwire.codec.BackendMessage.ParameterDescription;
import io.coilgun.pgwire.codec.BackendMessage.RowDescription;
import io.coilgun.pgwire.codec.FrontendMessage.Bind;
import io.coilgun.pgwire.codec.FrontendMessage.Close;
import io.coilgun.pgwire.codec.FrontendMessage.Describe;
import io.coilgun.pgwire.codec.FrontendMessage.Execute;
import io.coilgun.pgwire.codec.FrontendMessage.Parse;
import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.Statement;
import io.netty.channel.ChannelHandlerContext;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * The extended query protocol of one connection (https://www.postgresql.org/docs/current/protocol-flow.html
 * #PROTOCOL-FLOW-EXT-QUERY): prepared statements and portals by name ("" is the unnamed one), Parse, Bind,
 * Describe, Execute with row limits (suspended portals), Close. Errors are thrown as {@link PgException}s; the
 * handler sends them and skips to Sync. Runs on the channel's event loop only.
 */
final class ExtendedQuery {
    /** Told (on the event loop) when an Execute that had to wait has ended. */
    interface Listener {
        void executed(Throwable error);

        void abandoned();

        /** A streamed result is being sent ({@code rows}), or that Execute has ended (null). */
        default void streaming(StreamedRows rows) {
        }
    }

    /** A prepared statement; {@code statement} is null for an empty query string. */
    private record Prepared(Statement statement) {
    }

    private static final Statement EMPTY = null;

    private final ChannelHandlerContext ctx;
    private final Session session;
    private final Map<String, Prepared> statements = new HashMap<>();
    private final Map<String, Portal> portals = new HashMap<>();

    ExtendedQuery(ChannelHandlerContext ctx, Session session) {
        this.ctx = ctx;
        this.session = session;
    }

    void parse(Parse parse) {
        if (!parse.name().isEmpty() && statements.containsKey(parse.name())) {
            throw new PgException(SqlStates.DUPLICATE_PREPARED_STATEMENT, "prepared statement \"" + parse.name() + "\" already exists");
        }
        String deallocate = Deallocate.target(parse.sql());
        if (deallocate != null) {
            statements.put(parse.name(), new Prepared(new DeallocateStatement(parse.sql(), deallocate)));
            ctx.write(Empty.PARSE_COMPLETE);
            return;
        }
        List<Statement> parsed = session.parse(parse.sql());
        if (parsed.size() > 1) {
            throw new PgException(SqlStates.SYNTAX_ERROR, "cannot insert multiple commands into a prepared statement");
        }
        Statement statement = parsed.isEmpty() ? EMPTY : session.prepare(parsed.get(0), parse.parameterTypeOids());
        statements.put(parse.name(), new Prepared(statement));
        ctx.write(Empty.PARSE_COMPLETE);
    }

    void bind(Bind bind) {
        Prepared prepared = statement(bind.statement());
        List<PgType> types = prepared.statement() == null ? List.of() : prepared.statement().parameterTypes();
        if (bind.parameters().length != types.size()) {
            throw new PgException(SqlStates.PROTOCOL_VIOLATION, "bind message supplies "
                    + bind.parameters().length + " parameters, but prepared statement \"" + bind.statement()
                    + "\" requires " + types.size());
        }
        WireValues.checkFormats(bind.parameterFormats(), types.size(), "parameter");
        List<Object> values = new ArrayList<>(types.size());
        for (int i = 0; i < types.size(); i++) {
            values.add(WireValues.decodeParameter(i + 1, types.get(i), bind.parameters()[i],
                    WireValues.format(bind.parameterFormats(), i)));
        }
        for (short f : bind.resultFormats()) {
            if (f != WireValues.TEXT && f != WireValues.BINARY) {
                throw new PgException(SqlStates.PROTOCOL_VIOLATION, "unsupported format code: " + f);
            }
        }
        if (!bind.portal().isEmpty() && portals.containsKey(bind.portal())) {
            throw new PgException(SqlStates.DUPLICATE_CURSOR, "portal \"" + bind.portal() + "\" already exists");
        }
        Portal replaced = portals.put(bind.portal(), new Portal(prepared.statement(),
                Collections.unmodifiableList(values), bind.resultFormats()));
        if (replaced != null) {
            replaced.release();
        }
        ctx.write(Empty.BIND_COMPLETE);
    }

    /**
     * Describe: answers at once when the columns are known at once; otherwise (a statement the session describes off
     * the event loop, {@link Session#describeLater}) returns true, and the listener hears when it has ended.
     */
    boolean describe(Describe describe, Listener listener) {
        if (describe.kind() == 'S') {
            Statement statement = statement(describe.name()).statement();
            List<PgType> types = statement == null ? List.of() : statement.parameterTypes();
            ctx.write(new ParameterDescription(types.stream().mapToInt(PgType::oid).toArray()));
            if (statement == null || statement instanceof DeallocateStatement) {
                ctx.write(Empty.NO_DATA);
                return false;
            }
            return describeLater(session.describeLater(statement), listener,
                    columns -> ctx.write(columns.isEmpty() ? Empty.NO_DATA : new RowDescription(columns)));
        }
        if (!portals.containsKey(describe.name())) {
            // a cursor the session declared with DECLARE is a portal too, as in Postgres (psycopg 3 describes it)
            List<Column> cursor = describe.name().isEmpty() ? null : session.cursorColumns(describe.name());
            if (cursor != null) {
                ctx.write(cursor.isEmpty() ? Empty.NO_DATA : new RowDescription(cursor));
                return false;
            }
        }
        Portal portal = portal(describe.name());
        if (portal.statement == null || portal.statement instanceof DeallocateStatement) {
            ctx.write(Empty.NO_DATA);
            return false;
        }
        if (portal.executed()) {
            describePortal(portal, portal.result.columns());
            return false;
        }
        return describeLater(session.describeLater(portal.statement), listener, columns -> describePortal(portal,
                columns));
    }

    private void describePortal(Portal portal, List<Column> columns) {
        if (columns.isEmpty()) {
            ctx.write(Empty.NO_DATA);
            return;
        }
        WireValues.checkFormats(portal.resultFormats, columns.size(), "result");
        short[] formats = new short[columns.size()];
        for (int i = 0; i < formats.length; i++) {
            formats[i] = WireValues.format(portal.resultFormats, i);
        }
        ctx.write(new RowDescription(columns, formats));
    }

    /** Writes the description now if it is ready (true: it is not, the listener hears when it was written). */
    private boolean describeLater(CompletionStage<List<Column>> stage, Listener listener,
            Consumer<List<Column>> write) {
        CompletableFuture<List<Column>> columns = stage.toCompletableFuture();
        if (columns.isDone()) {
            try {
                write.accept(columns.join());
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
            return false;
        }
        columns.whenComplete((result, error) -> {
            try {
                ctx.executor().execute(() -> {
                    if (error != null) {
                        listener.executed(ErrorResponses.unwrap(error));
                        return;
                    }
                    try {
                        write.accept(result);
                    } catch (RuntimeException e) {
                        listener.executed(e);
                        return;
                    }
                    listener.executed(null);
                });
            } catch (RejectedExecutionException shutDown) {
                listener.abandoned();
            }
        });
        return true;
    }

    /**
     * Execute: answers at once when the portal has run already (or is empty); otherwise runs the statement and
     * returns true: the listener hears when it has ended.
     */
    boolean execute(Execute execute, Listener listener) {
        Portal portal = portal(execute.portal());
        if (portal.statement == null) {
            ctx.write(EmptyQueryResponse.INSTANCE);
            return false;
        }
        if (portal.streamed != null) {
            runStreamed(portal, execute.maxRows(), listener);
            return true;
        }
        if (portal.executed()) {
            sendRows(portal, execute.maxRows());
            return false;
        }
        if (portal.statement instanceof DeallocateStatement d) {
            deallocate(d.target());
            ctx.write(new CommandComplete(Deallocate.tag(d.target())));
            return false;
        }
        CompletionStage<QueryResult> stage = session.execute(portal.statement, portal.parameters);
        if (stage == null) {
            throw new IllegalStateException("Session.execute returned no result stage");
        }
        stage.whenComplete((result, error) -> {
            try {
                ctx.executor().execute(() -> completed(portal, execute.maxRows(), result, error, listener));
            } catch (RejectedExecutionException shutDown) {
                listener.abandoned();
            }
        });
        return true;
    }

    private void completed(Portal portal, int maxRows, QueryResult result, Throwable error, Listener listener) {
        if (error != null) {
            listener.executed(ErrorResponses.unwrap(error));
            return;
        }
        try {
            if (result == null) {
                throw new IllegalStateException("Session.execute completed without a result");
            }
            if (result.copyIn() != null) {
                result.copyIn().abort();
                throw new PgException(SqlStates.FEATURE_NOT_SUPPORTED,
                        "COPY FROM STDIN runs in the simple query protocol only");
            }
            portal.result = result;
            if (result.notices() != null) {
                for (String notice : result.notices()) {
                    ctx.write(new NoticeResponse(SqlStates.SUCCESSFUL_COMPLETION, notice));
                }
            }
            if (result.stream() != null) {
                try {
                    if (result.columns() != null && !result.columns().isEmpty()) {
                        WireValues.checkFormats(portal.resultFormats, result.columns().size(), "result");
                    }
                    portal.streamed = new StreamedRows(ctx, result, portal.resultFormats);
                } catch (RuntimeException e) {
                    result.stream().close();
                    throw e;
                }
                runStreamed(portal, maxRows, listener);
                return; // the listener hears when this Execute has ended
            }
            sendRows(portal, maxRows);
        } catch (RuntimeException e) {
            listener.executed(e);
            return;
        }
        listener.executed(null);
    }

    /**
     * Sends the portal's streamed rows up to {@code maxRows} (0: until the stream ends); the listener hears when
     * the Execute has ended. A stream that ended or failed leaves an empty result behind.
     */
    private void runStreamed(Portal portal, int maxRows, Listener listener) {
        StreamedRows rows = portal.streamed;
        listener.streaming(rows);
        rows.run(maxRows, (suspended, error) -> {
            listener.streaming(null);
            if (!suspended) {
                portal.streamed = null;
                String tag = rows.copyOut() ? "COPY 0" : (portal.result.commandTag() == null ? "SELECT"
                        : portal.result.commandTag()) + " 0";
                portal.result = new QueryResult(portal.result.columns(), List.of(), tag);
            }
            listener.executed(error);
        });
    }

    /** Up to {@code maxRows} (0: all) of the portal's rows, then PortalSuspended or CommandComplete. */
    private void sendRows(Portal portal, int maxRows) {
        QueryResult result = portal.result;
        List<Column> columns = result.columns() == null ? List.of() : result.columns();
        List<Object[]> rows = portal.rows();
        if (!columns.isEmpty()) {
            WireValues.checkFormats(portal.resultFormats, columns.size(), "result");
        }
        int end = maxRows <= 0 ? rows.size() : (int) Math.min(rows.size(), (long) portal.sent + maxRows);
        for (int r = portal.sent; r < end; r++) {
            ctx.write(WireValues.dataRow(columns, rows.get(r), portal.resultFormats));
            if ((r - portal.sent + 1) % SimpleQueryExecution.FLUSH_EVERY_ROWS == 0) {
                ctx.flush();
            }
        }
        portal.sent = end;
        if (end < rows.size()) {
            ctx.write(Empty.PORTAL_SUSPENDED);
            return;
        }
        String tag = result.commandTag();
        if (tag == null) {
            tag = columns.isEmpty() ? "" : "SELECT " + rows.size();
        }
        ctx.write(new CommandComplete(tag));
    }

    void close(Close close) {
        if (close.kind() == 'S') {
            statements.remove(close.name());
        } else {
            release(portals.remove(close.name()));
        }
        ctx.write(Empty.CLOSE_COMPLETE);
    }

    /** A parsed DEALLOCATE, run by the protocol layer itself (see {@link Deallocate}). */
    private record DeallocateStatement(String sql, String target) implements Statement {
    }

    /**
     * Drops the named statement {@code target} ({@link Deallocate#ALL}: every named one); refused in a failed
     * transaction block, as every statement there but ROLLBACK is.
     */
    void deallocate(String target) {
        if (session.transactionStatus() == 'E') {
            throw new PgException(SqlStates.IN_FAILED_SQL_TRANSACTION,
                    "current transaction is aborted, commands ignored until end of transaction block");
        }
        if (target.equals(Deallocate.ALL)) {
            statements.keySet().removeIf(name -> !name.isEmpty());
        } else if (statements.remove(target) == null) {
            throw new PgException(SqlStates.UNDEFINED_PREPARED_STATEMENT,
                    "prepared statement \"" + target + "\" does not exist");
        }
    }

    /** Sync: the unnamed portal ends; outside a transaction block every portal does. */
    void sync(char transactionStatus) {
        if (transactionStatus == 'I') {
            closeAll();
        } else {
            release(portals.remove(""));
        }
    }

    /** A simple Query drops the unnamed statement and portal, as in Postgres. */
    void simpleQuery() {
        statements.remove("");
        release(portals.remove(""));
    }

    /** Drops every portal, releasing streamed results (also when the connection ends). */
    void closeAll() {
        for (Portal portal : portals.values()) {
            portal.release();
        }
        portals.clear();
    }

    private static void release(Portal portal) {
        if (portal != null) {
            portal.release();
        }
    }

    private Prepared statement(String name) {
        Prepared prepared = statements.get(name);
        if (prepared == null) {
            throw new PgException(SqlStates.UNDEFINED_PREPARED_STATEMENT, name.isEmpty() ? "unnamed prepared statement does not exist"
                    : "prepared statement \"" + name + "\" does not exist");
        }
        return prepared;
    }

    private Portal portal(String name) {
        Portal portal = portals.get(name);
        if (portal == null) {
            throw new PgException(SqlStates.INVALID_CURSOR_NAME, name.isEmpty() ? "portal \"\" does not exist"
                    : "portal \"" + name + "\" does not exist");
        }
        return portal;
    }
}
