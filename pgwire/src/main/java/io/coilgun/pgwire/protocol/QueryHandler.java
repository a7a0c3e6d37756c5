package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.codec.BackendMessage;
import io.coilgun.pgwire.codec.BackendMessage.BackendKeyData;
import io.coilgun.pgwire.codec.BackendMessage.ErrorResponse;
import io.coilgun.pgwire.codec.BackendMessage.ReadyForQuery;
import io.coilgun.pgwire.codec.FrontendMessage;
import io.coilgun.pgwire.codec.FrontendMessage.Bind;
import io.coilgun.pgwire.codec.FrontendMessage.Close;
import io.coilgun.pgwire.codec.FrontendMessage.CopyData;
import io.coilgun.pgwire.codec.FrontendMessage.CopyFail;
import io.coilgun.pgwire.codec.FrontendMessage.Describe;
import io.coilgun.pgwire.codec.FrontendMessage.Execute;
import io.coilgun.pgwire.codec.FrontendMessage.MalformedMessage;
import io.coilgun.pgwire.codec.FrontendMessage.OtherMessage;
import io.coilgun.pgwire.codec.FrontendMessage.Parse;
import io.coilgun.pgwire.codec.FrontendMessage.Query;
import io.coilgun.pgwire.spi.CopyIn;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.SqlStates;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The second phase of one connection, after its {@link StartupHandler} sent ReadyForQuery: simple and extended
 * queries and COPY, driving the {@link Session} (https://www.postgresql.org/docs/current/protocol-flow.html):
 *
 * <pre>
 *  client                                     server
 *  ── IDLE ───────────────────────────────────────────────────────────────────
 *  Query(sql)                        ──▶  Session.parse, then per statement Session.execute
 *  ── BUSY (reads paused, later messages queued) ─────────────────────────────
 *                                    ◀──  EmptyQueryResponse
 *                                         | per statement: [RowDescription] DataRow* CommandComplete
 *                                           … until the first ErrorResponse
 *                                    ◀──  ReadyForQuery
 *  ── IDLE ───────────────────────────────────────────────────────────────────
 *  Parse / Bind / Describe / Close   ──▶  ParseComplete / BindComplete / ParameterDescription, RowDescription
 *                                         or NoData / CloseComplete           (ExtendedQuery)
 *  Execute(portal, maxRows)          ──▶  (BUSY while the statement runs) DataRow* then CommandComplete, or
 *                                         PortalSuspended when maxRows stopped it
 *  any error                         ◀──  ErrorResponse, then every message up to Sync is ignored
 *  Sync                              ──▶  ReadyForQuery
 *  ── COPY_IN (a statement answered with a CopyIn) ───────────────────────────
 *                                    ◀──  CopyInResponse
 *  CopyData* CopyDone | CopyFail     ──▶  CommandComplete (COPY n) or ErrorResponse, rest of the query
 *  Terminate / disconnect            ──▶  Session.close (once, after any running statement)
 *  ── CLOSED ─────────────────────────────────────────────────────────────────
 * </pre>
 *
 * <p>All methods run on the channel's event loop, so the fields need no locking. While a statement runs, the
 * channel's auto-read is off and any messages already decoded are queued, so messages are handled strictly
 * in order and session calls never overlap. Reading also pauses while the channel is not writable (a client
 * that does not read its results), so the server's buffers stay bounded.
 */
final class QueryHandler extends ChannelInboundHandlerAdapter
        implements SimpleQueryExecution.Listener, ExtendedQuery.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(QueryHandler.class);

    /** Where the connection is in the message flow above. */
    enum State {
        /** Ready for the next message. */
        IDLE,
        /** A statement is running; new messages wait in {@link #pending}. */
        BUSY,
        /** Receiving COPY FROM STDIN data. */
        COPY_IN,
        /** Terminate, a FATAL error or a disconnect: nothing more is read or run. */
        CLOSED
    }

    /**
     * While a streamed result is sent the channel keeps reading, so a client that goes away is noticed even when no
     * row flows; messages that arrive meanwhile (a Sync after the Execute) are queued, up to this many.
     */
    private static final int MAX_PENDING_WHILE_STREAMING = 8;

    private final Session session;
    private final CancelRegistry cancelRegistry;
    /** The process id and secret the client was sent, which a CancelRequest quotes. */
    private final BackendKeyData backendKey;
    private final ArrayDeque<FrontendMessage> pending;
    private final AtomicBoolean sessionClosed = new AtomicBoolean();
    private ChannelHandlerContext ctx;
    private State state = State.IDLE;
    /** After an error in an extended-query message, everything up to the next Sync is ignored. */
    private boolean skipUntilSync;
    /** The simple query running, if any. */
    private SimpleQueryExecution running;
    /** True while an extended-protocol Execute waits for its statement. */
    private boolean executing;
    private ExtendedQuery extended;
    private CopyInExecution copy;
    /** True while {@link #finished} hands queued messages on, so a query ending at once does not recurse. */
    private boolean draining;
    /** The streamed result being sent (SUBSCRIBE, COPY TO STDOUT), if any: pumped again when writable. */
    private StreamedRows streaming;

    /**
     * @param session the started session, closed by this handler when the connection ends
     * @param cancelRegistry where {@code backendKey} is registered; unregistered when the connection ends
     * @param pending messages that arrived during the startup, handled first
     */
    QueryHandler(Session session, CancelRegistry cancelRegistry, BackendKeyData backendKey,
            ArrayDeque<FrontendMessage> pending) {
        this.session = session;
        this.cancelRegistry = cancelRegistry;
        this.backendKey = backendKey;
        this.pending = pending;
    }

    /** The status ReadyForQuery reports for {@code session}: idle ('I') when the session cannot say. */
    static char transactionStatus(Session session) {
        try {
            return session == null ? 'I' : session.transactionStatus();
        } catch (RuntimeException e) {
            return 'I';
        }
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        extended = new ExtendedQuery(ctx, session);
        resume(); // messages queued during an asynchronous password check first; then reads on
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
        if (event instanceof IdleStateEvent && state == State.IDLE && pending.isEmpty()) {
            LOG.debug("Connection {} idle too long: closing", ctx.channel().remoteAddress());
            fatal(ErrorResponses.fatal(SqlStates.IDLE_SESSION_TIMEOUT, "terminating connection due to idle-session timeout"));
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FrontendMessage)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        FrontendMessage message = (FrontendMessage) msg;
        if (state == State.CLOSED) {
            return;
        }
        if (streaming != null && message == FrontendMessage.Terminate.INSTANCE) {
            state = State.CLOSED; // a client leaving during a SUBSCRIBE: end it now (channelInactive releases it)
            ctx.close();
            return;
        }
        if (state == State.BUSY || !pending.isEmpty() || !ctx.channel().isWritable()) {
            pending.add(message);
            if (state == State.BUSY && (streaming == null || pending.size() >= MAX_PENDING_WHILE_STREAMING)) {
                ctx.channel().config().setAutoRead(false); // it read on during a stream to notice a disconnect
            }
            if (!ctx.channel().isWritable()) {
                ctx.flush();
                ctx.channel().config().setAutoRead(false); // until channelWritabilityChanged
            }
            return;
        }
        handle(message);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable() && (state == State.IDLE || state == State.COPY_IN)) {
            resume();
        } else if (ctx.channel().isWritable() && streaming != null) {
            streaming.pump();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state = State.CLOSED;
        pending.clear();
        cancelRegistry.unregister(backendKey);
        if (copy != null) {
            copy.abort();
            copy = null;
        }
        if (streaming != null) {
            streaming.abort(); // releases the subscription; the statement ends with the connection
        }
        extended.closeAll();
        if (running == null && !executing) {
            closeSession(); // else when the running statement completes: session calls never overlap
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionEnd.failed(ctx, cause, LOG, () -> state = State.CLOSED, this::fatal);
    }

    private void handle(FrontendMessage message) {
        try {
            dispatch(message);
        } catch (RuntimeException e) {
            LOG.warn("Unexpected error handling {} on connection {}", message, ctx.channel().remoteAddress(), e);
            fatal(ErrorResponses.internal(e, ErrorResponse.FATAL));
        }
    }

    private void dispatch(FrontendMessage message) {
        if (message instanceof MalformedMessage malformed) {
            fatal(ErrorResponses.fatal(SqlStates.PROTOCOL_VIOLATION, malformed.reason()));
        } else if (message == FrontendMessage.Terminate.INSTANCE) {
            LOG.debug("Connection {} terminated by the client", ctx.channel().remoteAddress());
            state = State.CLOSED;
            ctx.close();
        } else if (state == State.COPY_IN) {
            copyInMessage(message);
        } else if (message == FrontendMessage.Sync.INSTANCE) {
            skipUntilSync = false;
            char status = transactionStatus(session);
            extended.sync(status);
            ctx.writeAndFlush(new ReadyForQuery(status));
        } else if (message == FrontendMessage.Flush.INSTANCE) {
            ctx.flush();
        } else if (skipUntilSync) {
            return; // as Postgres does after an extended-query error
        } else if (message instanceof Query query) {
            extended.simpleQuery();
            startQuery(query.sql());
        } else if (message instanceof Parse || message instanceof Bind || message instanceof Describe
                || message instanceof Close || message instanceof Execute) {
            extendedQueryMessage(message);
        } else if (message instanceof CopyData || message == FrontendMessage.CopyDone.INSTANCE
                || message instanceof CopyFail) {
            return; // no COPY in progress: ignored, as Postgres does
        } else if (message instanceof OtherMessage other && other.type() == 'F') {
            ctx.write(ErrorResponses.error(SqlStates.FEATURE_NOT_SUPPORTED,
                    "the function call protocol is not supported"));
            ctx.writeAndFlush(new ReadyForQuery(transactionStatus(session)));
        } else if (message instanceof OtherMessage other) {
            fatal(ErrorResponses.fatal(SqlStates.PROTOCOL_VIOLATION,
                    "invalid frontend message type " + (int) other.type()));
        } else {
            fatal(ErrorResponses.fatal(SqlStates.PROTOCOL_VIOLATION, "unexpected message "
                    + message.getClass().getSimpleName()));
        }
    }

    private void extendedQueryMessage(FrontendMessage message) {
        try {
            if (message instanceof Parse parse) {
                extended.parse(parse);
            } else if (message instanceof Bind bind) {
                extended.bind(bind);
            } else if (message instanceof Describe describe) {
                if (extended.describe(describe, this)) {
                    executing = true; // the next messages wait for the description, as for an Execute
                    state = State.BUSY;
                    ctx.channel().config().setAutoRead(false);
                }
            } else if (message instanceof Close close) {
                extended.close(close);
            } else if (extended.execute((Execute) message, this)) {
                executing = true;
                state = State.BUSY;
                // a resumed streamed portal reads on (to notice a disconnect), as in streaming(...)
                ctx.channel().config().setAutoRead(streaming != null
                        && pending.size() < MAX_PENDING_WHILE_STREAMING);
            }
        } catch (RuntimeException e) {
            extendedError(e);
        }
    }

    /** An extended-query message failed: send the error and ignore everything up to Sync. */
    private void extendedError(Throwable e) {
        if (e instanceof PgException pg && pg.fatal()) {
            fatal(ErrorResponses.of(pg));
            return;
        }
        if (e instanceof PgException pg) {
            ctx.write(ErrorResponses.of(pg));
        } else {
            LOG.warn("Internal error in the extended query protocol on {}", ctx.channel().remoteAddress(), e);
            ctx.write(ErrorResponses.internal(e, ErrorResponse.ERROR));
        }
        session.statementFailed();
        skipUntilSync = true;
    }

    @Override
    public void executed(Throwable error) {
        executing = false;
        if (state == State.CLOSED || !ctx.channel().isActive()) {
            closeSession();
            return;
        }
        if (error != null) {
            extendedError(error);
        }
        if (state != State.CLOSED) {
            state = State.IDLE;
            resume();
        }
    }

    private void copyInMessage(FrontendMessage message) {
        if (message instanceof CopyData data) {
            copy.data(data.data());
        } else if (message == FrontendMessage.CopyDone.INSTANCE) {
            state = State.BUSY;
            ctx.channel().config().setAutoRead(false);
            CopyInExecution ending = copy;
            copy = null;
            ending.done();
        } else if (message instanceof CopyFail fail) {
            state = State.BUSY;
            CopyInExecution ending = copy;
            copy = null;
            ending.fail(new PgException(SqlStates.QUERY_CANCELED, "COPY from stdin failed: " + fail.message()));
        } else if (message == FrontendMessage.Flush.INSTANCE || message == FrontendMessage.Sync.INSTANCE) {
            return; // ignored during COPY, as Postgres does
        } else {
            state = State.BUSY;
            CopyInExecution ending = copy;
            copy = null;
            ending.fail(new PgException(SqlStates.PROTOCOL_VIOLATION, "unexpected message type "
                    + message.getClass().getSimpleName() + " during COPY from stdin"));
        }
    }

    @Override
    public void copyIn(CopyIn copyIn, SimpleQueryExecution execution) {
        copy = new CopyInExecution(ctx, copyIn, (result, error) -> {
            copy = null;
            if (state == State.COPY_IN) {
                state = State.BUSY; // the data failed before CopyDone: the query ends now
            }
            execution.copyEnded(result, error);
        });
        state = State.COPY_IN;
        copy.start();
        ctx.channel().config().setAutoRead(true);
        resume();
    }

    private void startQuery(String sql) {
        state = State.BUSY;
        ctx.channel().config().setAutoRead(false);
        running = new SimpleQueryExecution(ctx, session, sql, this, extended::deallocate);
        running.start();
    }

    @Override
    public void finished(boolean fatal) {
        running = null;
        if (state == State.CLOSED || !ctx.channel().isActive()) {
            closeSession(); // the client left while a statement ran
            return;
        }
        if (fatal) {
            state = State.CLOSED;
            pending.clear();
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        state = State.IDLE;
        ctx.writeAndFlush(new ReadyForQuery(transactionStatus(session)));
        resume();
    }

    /** Handles queued messages until one starts a statement; then reads again when nothing runs. */
    private void resume() {
        if (draining) {
            return; // a statement that ended at once, started by the loop below: that loop goes on
        }
        draining = true;
        try {
            while ((state == State.IDLE || state == State.COPY_IN) && !pending.isEmpty()
                    && ctx.channel().isWritable()) {
                handle(pending.poll());
            }
        } finally {
            draining = false;
        }
        if (state == State.IDLE || state == State.COPY_IN) {
            if (!ctx.channel().isWritable()) {
                ctx.flush();
            } else if (pending.isEmpty()) {
                ctx.channel().config().setAutoRead(true);
            }
        }
    }

    /**
     * A streamed result started or ended. While one is sent, the channel keeps reading (messages are queued, and
     * reading stops at {@link #MAX_PENDING_WHILE_STREAMING}) so that a client that goes away is noticed even when
     * no row flows.
     */
    @Override
    public void streaming(StreamedRows rows) {
        streaming = rows;
        if (rows != null && pending.size() < MAX_PENDING_WHILE_STREAMING && state != State.CLOSED) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void abandoned() {
        running = null;
        executing = false;
        closeSession();
    }

    /** Sends a FATAL ErrorResponse and closes the connection. */
    private void fatal(BackendMessage error) {
        state = State.CLOSED;
        pending.clear();
        cancelRegistry.unregister(backendKey);
        ConnectionEnd.sendFatal(ctx, error);
    }

    private void closeSession() {
        if (sessionClosed.compareAndSet(false, true)) {
            try {
                session.close();
            } catch (RuntimeException e) {
                LOG.warn("Session.close failed for connection {}", ctx.channel().remoteAddress(), e);
            }
        }
    }
}
