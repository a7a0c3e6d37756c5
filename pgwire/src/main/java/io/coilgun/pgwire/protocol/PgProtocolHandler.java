package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.codec.BackendMessage;
import io.coilgun.pgwire.codec.BackendMessage.AuthenticationOk;
import io.coilgun.pgwire.codec.BackendMessage.BackendKeyData;
import io.coilgun.pgwire.codec.BackendMessage.ErrorResponse;
import io.coilgun.pgwire.codec.BackendMessage.NegotiateProtocolVersion;
import io.coilgun.pgwire.codec.BackendMessage.ParameterStatus;
import io.coilgun.pgwire.codec.BackendMessage.ReadyForQuery;
import io.coilgun.pgwire.codec.FrontendMessage;
import io.coilgun.pgwire.codec.FrontendMessage.CopyMessage;
import io.coilgun.pgwire.codec.FrontendMessage.ExtendedQueryMessage;
import io.coilgun.pgwire.codec.FrontendMessage.MalformedMessage;
import io.coilgun.pgwire.codec.FrontendMessage.OtherMessage;
import io.coilgun.pgwire.codec.FrontendMessage.Query;
import io.coilgun.pgwire.codec.FrontendMessage.StartupMessage;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.SessionFactory;
import io.coilgun.pgwire.spi.StartupInfo;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backend side of one connection: startup, then simple queries, driving a {@link Session}. Message
 * flow (https://www.postgresql.org/docs/current/protocol-flow.html):
 *
 * <pre>
 *  client                                     server
 *  ── AWAITING_STARTUP ───────────────────────────────────────────────────────
 *  SSLRequest / GSSENCRequest        ──▶
 *                                    ◀──  'N' (no encryption; wait for startup)
 *  CancelRequest                     ──▶  close (cancellation comes later)
 *  StartupMessage(user, database…)   ──▶  SessionFactory.open
 *                                    ◀──  [NegotiateProtocolVersion] AuthenticationOk
 *                                         ParameterStatus* BackendKeyData
 *                                         ReadyForQuery('I')        (or FATAL ErrorResponse, close)
 *  ── IDLE ───────────────────────────────────────────────────────────────────
 *  Query(sql)                        ──▶  Session.parse, then per statement Session.execute
 *  ── EXECUTING (reads paused, later messages queued) ────────────────────────
 *                                    ◀──  EmptyQueryResponse
 *                                         | per statement: [RowDescription] DataRow* CommandComplete
 *                                           … until the first ErrorResponse
 *                                    ◀──  ReadyForQuery('I')
 *  ── IDLE ───────────────────────────────────────────────────────────────────
 *  Parse/Bind/Describe/Execute/Close ──▶
 *                                    ◀──  ErrorResponse 0A000, then ignore all but Sync
 *  Sync                              ──▶
 *                                    ◀──  ReadyForQuery('I')
 *  Terminate / disconnect            ──▶  Session.close (once, after any running statement)
 *  ── CLOSED ─────────────────────────────────────────────────────────────────
 * </pre>
 *
 * <p>All methods run on the channel's event loop, so the fields need no locking. While a query runs, the
 * channel's auto-read is off and any messages already decoded are queued, so messages are handled strictly
 * in order and session calls never overlap.
 */
public final class PgProtocolHandler extends ChannelInboundHandlerAdapter implements SimpleQueryExecution.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(PgProtocolHandler.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String EXTENDED_NOT_SUPPORTED =
            "extended query protocol is not supported yet; connect with preferQueryMode=simple";

    /** Where the connection is in the message flow above. */
    enum State {
        /** Before the StartupMessage (SSLRequest/GSSENCRequest may come first). */
        AWAITING_STARTUP,
        /** Ready for a query; ReadyForQuery was sent. */
        IDLE,
        /** A simple query is running; new messages wait in {@link #pending}. */
        EXECUTING,
        /** Terminate, a FATAL error or a disconnect: nothing more is read or run. */
        CLOSED
    }

    private final SessionFactory sessionFactory;
    private final ArrayDeque<FrontendMessage> pending = new ArrayDeque<>();
    private final AtomicBoolean sessionClosed = new AtomicBoolean();
    private ChannelHandlerContext ctx;
    private State state = State.AWAITING_STARTUP;
    /** After an error in an extended-query message, everything up to the next Sync is ignored. */
    private boolean skipUntilSync;
    private Session session;
    private SimpleQueryExecution running;
    private BackendKeyData backendKey;
    /** True while {@link #finished} hands queued messages on, so a query ending at once does not recurse. */
    private boolean draining;

    public PgProtocolHandler(SessionFactory sessionFactory) {
        this.sessionFactory = sessionFactory;
    }

    State state() {
        return state;
    }

    /** The process id and secret sent to the client, for the CancelRequest support still to come. */
    BackendKeyData backendKey() {
        return backendKey;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
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
        if (state == State.EXECUTING || !pending.isEmpty()) {
            pending.add(message);
            return;
        }
        handle(message);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        state = State.CLOSED;
        pending.clear();
        if (running == null) {
            closeSession(); // else when the running statement completes: session calls never overlap
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            LOG.debug("Connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        } else {
            LOG.warn("Unexpected error on connection {}", ctx.channel().remoteAddress(), cause);
            fatal(ErrorResponses.internal(cause, ErrorResponse.FATAL));
        }
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
        if (message instanceof MalformedMessage) {
            fatal(ErrorResponses.fatal(ErrorResponses.PROTOCOL_VIOLATION, ((MalformedMessage) message).reason()));
        } else if (state == State.AWAITING_STARTUP) {
            handleStartupPhase(message);
        } else if (message == FrontendMessage.Terminate.INSTANCE) {
            LOG.debug("Connection {} terminated by the client", ctx.channel().remoteAddress());
            state = State.CLOSED;
            ctx.close();
        } else if (message == FrontendMessage.Sync.INSTANCE) {
            skipUntilSync = false;
            ctx.writeAndFlush(ReadyForQuery.IDLE);
        } else if (skipUntilSync) {
            return; // as Postgres does after an extended-query error
        } else if (message instanceof Query) {
            startQuery(((Query) message).sql());
        } else if (message instanceof ExtendedQueryMessage) {
            // TODO(extended protocol): Parse/Bind/Describe/Execute/Close come in a later issue.
            skipUntilSync = true;
            ctx.writeAndFlush(ErrorResponses.error(ErrorResponses.FEATURE_NOT_SUPPORTED, EXTENDED_NOT_SUPPORTED));
        } else if (message == FrontendMessage.Flush.INSTANCE) {
            ctx.flush();
        } else if (message instanceof CopyMessage) {
            return; // no COPY in progress: ignored, as Postgres does
        } else if (message instanceof OtherMessage && ((OtherMessage) message).type() == 'F') {
            ctx.write(ErrorResponses.error(ErrorResponses.FEATURE_NOT_SUPPORTED,
                    "the function call protocol is not supported"));
            ctx.writeAndFlush(ReadyForQuery.IDLE);
        } else if (message instanceof OtherMessage) {
            fatal(ErrorResponses.fatal(ErrorResponses.PROTOCOL_VIOLATION,
                    "invalid frontend message type " + (int) ((OtherMessage) message).type()));
        } else {
            fatal(ErrorResponses.fatal(ErrorResponses.PROTOCOL_VIOLATION, "unexpected message " + message));
        }
    }

    private void handleStartupPhase(FrontendMessage message) {
        if (message == FrontendMessage.SslRequest.INSTANCE || message == FrontendMessage.GssEncRequest.INSTANCE) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'N'})); // no encryption; the client goes on
        } else if (message instanceof FrontendMessage.CancelRequest) {
            // TODO(cancel): match the key against BackendKeyData of open connections; for now just hang up.
            state = State.CLOSED;
            ctx.close();
        } else if (message instanceof StartupMessage) {
            startup((StartupMessage) message);
        } else {
            fatal(ErrorResponses.fatal(ErrorResponses.PROTOCOL_VIOLATION, "expected a startup message"));
        }
    }

    private void startup(StartupMessage startup) {
        if (startup.majorVersion() != 3) {
            fatal(ErrorResponses.fatal(ErrorResponses.FEATURE_NOT_SUPPORTED, "unsupported frontend protocol "
                    + startup.majorVersion() + "." + startup.minorVersion() + ": server supports 3.0 to 3.0"));
            return;
        }
        Map<String, String> parameters = startup.parameters();
        String user = parameters.get("user");
        if (user == null || user.isEmpty()) {
            fatal(ErrorResponses.fatal(ErrorResponses.INVALID_AUTHORIZATION_SPECIFICATION,
                    "no PostgreSQL user name specified in startup packet"));
            return;
        }
        String database = parameters.getOrDefault("database", "");
        StartupInfo info = new StartupInfo(user, database.isEmpty() ? user : database, parameters);

        List<String> unrecognized = new ArrayList<>();
        parameters.keySet().stream().filter(name -> name.startsWith("_pq_.")).forEach(unrecognized::add);
        if (startup.minorVersion() > 0 || !unrecognized.isEmpty()) {
            ctx.write(new NegotiateProtocolVersion(0, unrecognized));
        }
        ctx.write(AuthenticationOk.INSTANCE); // trust authentication: every user and database is accepted

        try {
            session = sessionFactory.open(info);
            if (session == null) {
                throw new IllegalStateException("SessionFactory.open returned no session");
            }
        } catch (PgException e) {
            fatal(new ErrorResponse(ErrorResponse.FATAL, e.sqlState(), e.getMessage(), 0));
            return;
        } catch (RuntimeException e) {
            LOG.warn("Could not open a session for user {} on {}", user, ctx.channel().remoteAddress(), e);
            fatal(ErrorResponses.internal(e, ErrorResponse.FATAL));
            return;
        }

        Map<String, String> sessionParameters;
        try {
            sessionParameters = session.parameterStatus();
        } catch (RuntimeException e) {
            LOG.warn("Session.parameterStatus failed; sending the defaults only", e);
            sessionParameters = Map.of();
        }
        ServerParameters.forSession(info, sessionParameters == null ? Map.of() : sessionParameters)
                .forEach((name, value) -> ctx.write(new ParameterStatus(name, value == null ? "" : value)));
        backendKey = new BackendKeyData(RANDOM.nextInt(Integer.MAX_VALUE - 1) + 1, RANDOM.nextInt());
        ctx.write(backendKey);
        state = State.IDLE;
        ctx.writeAndFlush(ReadyForQuery.IDLE);
        LOG.debug("Connection {} started for user {}, database {}", ctx.channel().remoteAddress(), user,
                info.database());
    }

    private void startQuery(String sql) {
        state = State.EXECUTING;
        ctx.channel().config().setAutoRead(false);
        running = new SimpleQueryExecution(ctx, session, sql, this);
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
        ctx.writeAndFlush(ReadyForQuery.IDLE);
        if (draining) {
            return; // a query that ended at once, started by the loop below: that loop goes on
        }
        draining = true;
        try {
            while (state == State.IDLE && !pending.isEmpty()) {
                handle(pending.poll());
            }
        } finally {
            draining = false;
        }
        if (state == State.IDLE) {
            ctx.channel().config().setAutoRead(true);
        }
    }

    @Override
    public void abandoned() {
        running = null;
        closeSession();
    }

    /** Sends a FATAL ErrorResponse and closes the connection. */
    private void fatal(BackendMessage error) {
        state = State.CLOSED;
        pending.clear();
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(error).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }

    private void closeSession() {
        if (session != null && sessionClosed.compareAndSet(false, true)) {
            try {
                session.close();
            } catch (RuntimeException e) {
                LOG.warn("Session.close failed for connection {}", ctx.channel().remoteAddress(), e);
            }
        }
    }
}
