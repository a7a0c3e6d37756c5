package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.pgwire.auth.Authentication;
import io.coilgun.pgwire.codec.BackendMessage;
import io.coilgun.pgwire.codec.BackendMessage.AuthenticationOk;
import io.coilgun.pgwire.codec.BackendMessage.BackendKeyData;
import io.coilgun.pgwire.codec.BackendMessage.ErrorResponse;
import io.coilgun.pgwire.codec.BackendMessage.NegotiateProtocolVersion;
import io.coilgun.pgwire.codec.BackendMessage.ParameterStatus;
import io.coilgun.pgwire.codec.BackendMessage.ReadyForQuery;
import io.coilgun.pgwire.codec.FrontendMessage;
import io.coilgun.pgwire.codec.FrontendMessage.Bind;
import io.coilgun.pgwire.codec.FrontendMessage.Close;
import io.coilgun.pgwire.codec.FrontendMessage.CopyData;
import io.coilgun.pgwire.codec.FrontendMessage.CopyFail;
import io.coilgun.pgwire.codec.FrontendMessage.Describe;
import io.coilgun.pgwire.codec.FrontendMessage.Execute;
import io.coilgun.pgwire.codec.FrontendMessage.Parse;
import io.coilgun.pgwire.codec.FrontendMessage.MalformedMessage;
import io.coilgun.pgwire.codec.FrontendMessage.OtherMessage;
import io.coilgun.pgwire.codec.FrontendMessage.Query;
import io.coilgun.pgwire.codec.FrontendMessage.StartupMessage;
import io.coilgun.pgwire.spi.CopyIn;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.SessionFactory;
import io.coilgun.pgwire.spi.StartupInfo;
import io.coilgun.pgwire.tls.ServerTls;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The backend side of one connection: startup, then simple and extended queries and COPY, driving a
 * {@link Session}. Message flow (https://www.postgresql.org/docs/current/protocol-flow.html):
 *
 * <pre>
 *  client                                     server
 *  ── AWAITING_STARTUP ───────────────────────────────────────────────────────
 *  SSLRequest                        ──▶
 *                                    ◀──  'S' and TLS from here on (a certificate is configured), else 'N'
 *  GSSENCRequest                     ──▶
 *                                    ◀──  'N' (no GSSAPI encryption; wait for startup)
 *  CancelRequest                     ──▶  cancel the matching connection's statement; close
 *  StartupMessage(user, database…)   ──▶
 *                                    ◀──  [NegotiateProtocolVersion]
 *  ── AUTHENTICATING (unless trust) ──────────────────────────────────────────
 *                                    ◀─▶  password or SCRAM-SHA-256 exchange        (Authenticator)
 *                                    ◀──  AuthenticationOk (or FATAL 28P01, close)
 *                                         SessionFactory.open
 *                                         ParameterStatus* BackendKeyData
 *                                         ReadyForQuery            (or FATAL ErrorResponse, close)
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
public final class PgProtocolHandler extends ChannelInboundHandlerAdapter
        implements SimpleQueryExecution.Listener, ExtendedQuery.Listener {
    private static final Logger LOG = LoggerFactory.getLogger(PgProtocolHandler.class);

    /** Where the connection is in the message flow above. */
    enum State {
        /** Before the StartupMessage (SSLRequest/GSSENCRequest may come first). */
        AWAITING_STARTUP,
        /** After the StartupMessage, until the password or SCRAM exchange succeeds. */
        AUTHENTICATING,
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

    private final SessionFactory sessionFactory;
    private final CancelRegistry cancelRegistry;
    private final int maxConnections;
    private final Authentication authentication;
    /** Null when no certificate is configured: SSLRequest is answered 'N'. */
    private final ServerTls tls;
    private final ArrayDeque<FrontendMessage> pending = new ArrayDeque<>();
    private final AtomicBoolean sessionClosed = new AtomicBoolean();
    private ChannelHandlerContext ctx;
    private State state = State.AWAITING_STARTUP;
    /** After an error in an extended-query message, everything up to the next Sync is ignored. */
    private boolean skipUntilSync;
    private Session session;
    /** The simple query running, if any. */
    private SimpleQueryExecution running;
    /** True while an extended-protocol Execute waits for its statement. */
    private boolean executing;
    private ExtendedQuery extended;
    private CopyInExecution copy;
    private BackendKeyData backendKey;
    /** True while {@link #finished} hands queued messages on, so a query ending at once does not recurse. */
    private boolean draining;
    /** The exchange under way in AUTHENTICATING, and the startup it authenticates. */
    private Authenticator authenticator;
    private StartupInfo startupInfo;
    /** True while a password check runs off the event loop: messages wait in {@link #pending}. */
    private boolean checkingPassword;
    private boolean tlsStarted;
    /** Closes the connection if it is not past authentication by then (Postgres' authentication_timeout). */
    private final Duration authenticationTimeout;
    private ScheduledFuture<?> authenticationDeadline;
    /** The streamed result being sent (SUBSCRIBE, COPY TO STDOUT), if any: pumped again when writable. */
    private StreamedRows streaming;

    public PgProtocolHandler(SessionFactory sessionFactory) {
        this(sessionFactory, new CancelRegistry(), Integer.MAX_VALUE);
    }

    /**
     * @param cancelRegistry the server's open connections (shared by all handlers)
     * @param maxConnections refuse a startup when this many connections are open already
     */
    public PgProtocolHandler(SessionFactory sessionFactory, CancelRegistry cancelRegistry, int maxConnections) {
        this(sessionFactory, cancelRegistry, maxConnections, Authentication.trust(), null, Duration.ofSeconds(60));
    }

    /**
     * @param authentication how clients prove who they are
     * @param tls the certificate to offer on SSLRequest, or null to answer 'N'
     * @param authenticationTimeout a connection not past authentication by then is closed, silently as Postgres
     */
    public PgProtocolHandler(SessionFactory sessionFactory, CancelRegistry cancelRegistry, int maxConnections,
            Authentication authentication, ServerTls tls, Duration authenticationTimeout) {
        this.sessionFactory = sessionFactory;
        this.cancelRegistry = cancelRegistry;
        this.maxConnections = maxConnections;
        this.authentication = authentication;
        this.tls = tls;
        this.authenticationTimeout = authenticationTimeout;
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

    State state() {
        return state;
    }

    /** The process id and secret sent to the client, which a CancelRequest quotes. */
    BackendKeyData backendKey() {
        return backendKey;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        authenticationDeadline = ctx.executor().schedule(() -> {
            if (state == State.AWAITING_STARTUP || state == State.AUTHENTICATING) {
                LOG.debug("Connection {} not authenticated after {}: closing", ctx.channel().remoteAddress(),
                        authenticationTimeout);
                state = State.CLOSED;
                pending.clear();
                ctx.close();
            }
        }, authenticationTimeout.toMillis(), TimeUnit.MILLISECONDS);
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
        if (state == State.BUSY || checkingPassword || !pending.isEmpty() || !ctx.channel().isWritable()) {
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
        authenticationDeadline.cancel(false);
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
        if (extended != null) {
            extended.closeAll();
        }
        if (running == null && !executing) {
            closeSession(); // else when the running statement completes: session calls never overlap
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof NotSslRecordException
                || (cause instanceof DecoderException && cause.getCause() instanceof SSLException)) {
            LOG.debug("TLS failed on connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
            state = State.CLOSED;
            ctx.close(); // nothing can be said to a client whose TLS failed
        } else if (cause instanceof IOException) {
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
            fatal(ErrorResponses.fatal(SqlStates.PROTOCOL_VIOLATION, ((MalformedMessage) message).reason()));
        } else if (state == State.AWAITING_STARTUP) {
            handleStartupPhase(message);
        } else if (state == State.AUTHENTICATING) {
            authenticationMessage(message);
        } else if (message == FrontendMessage.Terminate.INSTANCE) {
            LOG.debug("Connection {} terminated by the client", ctx.channel().remoteAddress());
            state = State.CLOSED;
            ctx.close();
        } else if (state == State.COPY_IN) {
            copyInMessage(message);
        } else if (message == FrontendMessage.Sync.INSTANCE) {
            skipUntilSync = false;
            char status = transactionStatus();
            extended.sync(status);
            ctx.writeAndFlush(new ReadyForQuery(status));
        } else if (message == FrontendMessage.Flush.INSTANCE) {
            ctx.flush();
        } else if (skipUntilSync) {
            return; // as Postgres does after an extended-query error
        } else if (message instanceof Query) {
            extended.simpleQuery();
            startQuery(((Query) message).sql());
        } else if (message instanceof Parse || message instanceof Bind || message instanceof Describe
                || message instanceof Close || message instanceof Execute) {
            extendedQueryMessage(message);
        } else if (message instanceof CopyData || message == FrontendMessage.CopyDone.INSTANCE
                || message instanceof CopyFail) {
            return; // no COPY in progress: ignored, as Postgres does
        } else if (message instanceof OtherMessage && ((OtherMessage) message).type() == 'F') {
            ctx.write(ErrorResponses.error(SqlStates.FEATURE_NOT_SUPPORTED,
                    "the function call protocol is not supported"));
            ctx.writeAndFlush(new ReadyForQuery(transactionStatus()));
        } else if (message instanceof OtherMessage) {
            fatal(ErrorResponses.fatal(SqlStates.PROTOCOL_VIOLATION,
                    "invalid frontend message type " + (int) ((OtherMessage) message).type()));
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
        if (session != null) {
            session.statementFailed();
        }
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

    private char transactionStatus() {
        try {
            return session == null ? 'I' : session.transactionStatus();
        } catch (RuntimeException e) {
            return 'I';
        }
    }

    private void handleStartupPhase(FrontendMessage message) {
        if (message == FrontendMessage.SslRequest.INSTANCE && tls != null && !tlsStarted) {
            tlsStarted = true;
            // 'S' leaves in clear; everything after it, both ways, goes through TLS. The client sends nothing
            // before reading 'S' (the decoder refuses bytes that came with the request), so nothing is misread.
            ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'S'}));
            ctx.pipeline().addFirst("tls", tls.newHandler(ctx.alloc()));
        } else if (message == FrontendMessage.SslRequest.INSTANCE
                || message == FrontendMessage.GssEncRequest.INSTANCE) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'N'})); // no encryption; the client goes on
        } else if (message instanceof FrontendMessage.CancelRequest cancel) {
            boolean found = cancelRegistry.cancel(cancel.processId(), cancel.secretKey());
            LOG.debug("CancelRequest for process {}: {}", cancel.processId(), found ? "sent" : "no such connection");
            state = State.CLOSED;
            ctx.close(); // Postgres answers nothing either way
        } else if (message instanceof StartupMessage) {
            startup((StartupMessage) message);
        } else {
            fatal(ErrorResponses.fatal(SqlStates.PROTOCOL_VIOLATION, "expected a startup message"));
        }
    }

    private void startup(StartupMessage startup) {
        if (startup.majorVersion() != 3) {
            fatal(ErrorResponses.fatal(SqlStates.FEATURE_NOT_SUPPORTED, "unsupported frontend protocol "
                    + startup.majorVersion() + "." + startup.minorVersion() + ": server supports 3.0 to 3.0"));
            return;
        }
        Map<String, String> parameters = startup.parameters();
        String user = parameters.get("user");
        if (user == null || user.isEmpty()) {
            fatal(ErrorResponses.fatal(SqlStates.INVALID_AUTHORIZATION_SPECIFICATION,
                    "no PostgreSQL user name specified in startup packet"));
            return;
        }
        if (cancelRegistry.size() >= maxConnections) {
            fatal(ErrorResponses.fatal(SqlStates.TOO_MANY_CONNECTIONS, "sorry, too many clients already"));
            return;
        }
        String database = parameters.getOrDefault("database", "");
        StartupInfo info = new StartupInfo(user, database.isEmpty() ? user : database, parameters);

        List<String> unrecognized = new ArrayList<>();
        parameters.keySet().stream().filter(name -> name.startsWith("_pq_.")).forEach(unrecognized::add);
        if (startup.minorVersion() > 0 || !unrecognized.isEmpty()) {
            ctx.write(new NegotiateProtocolVersion(0, unrecognized));
        }
        startupInfo = info;
        authenticator = new Authenticator(authentication, user);
        BackendMessage request = authenticator.start();
        if (request == null) {
            authenticated(); // trust: every user and database is accepted
        } else {
            state = State.AUTHENTICATING;
            ctx.writeAndFlush(request);
        }
    }

    /** A message while authenticating: the client's next password or SASL message. */
    private void authenticationMessage(FrontendMessage message) {
        if (message == FrontendMessage.Terminate.INSTANCE) {
            state = State.CLOSED;
            ctx.close();
            return;
        }
        if (!(message instanceof FrontendMessage.PasswordMessage password)) {
            int type = typeByte(message);
            fatal(ErrorResponses.fatal(SqlStates.PROTOCOL_VIOLATION, authentication.method()
                    == Authentication.Method.PASSWORD ? "expected password response, got message type " + type
                    : "expected SASL response, got message type " + type));
            return;
        }
        CompletionStage<Authenticator.Outcome> outcome = authenticator.respond(password.body());
        if (outcome.toCompletableFuture().isDone()) {
            authenticationStep(outcome);
            return;
        }
        checkingPassword = true;
        ctx.channel().config().setAutoRead(false);
        outcome.whenComplete((result, error) -> ctx.executor().execute(() -> {
            checkingPassword = false;
            if (state == State.AUTHENTICATING) {
                authenticationStep(outcome);
            }
            if (state == State.IDLE) {
                resume();
            }
        }));
    }

    /** The type byte a typed message came with, as Postgres names it in errors. */
    private static int typeByte(FrontendMessage message) {
        if (message instanceof OtherMessage other) {
            return other.type();
        }
        return message instanceof Query ? 'Q' : message instanceof Parse ? 'P' : message instanceof Bind ? 'B'
                : message instanceof Describe ? 'D' : message instanceof Execute ? 'E' : message instanceof Close ? 'C'
                : message == FrontendMessage.Sync.INSTANCE ? 'S' : message == FrontendMessage.Flush.INSTANCE ? 'H'
                : message instanceof CopyData ? 'd' : message == FrontendMessage.CopyDone.INSTANCE ? 'c'
                : message instanceof CopyFail ? 'f' : 0;
    }

    private void authenticationStep(CompletionStage<Authenticator.Outcome> completed) {
        Authenticator.Outcome outcome;
        try {
            outcome = completed.toCompletableFuture().join();
        } catch (RuntimeException e) {
            Throwable cause = ErrorResponses.unwrap(e);
            if (cause instanceof PgException pg) {
                LOG.debug("Authentication failed on {}: {}", ctx.channel().remoteAddress(), pg.getMessage());
                fatal(ErrorResponses.of(pg));
            } else {
                LOG.warn("Authentication error on {}", ctx.channel().remoteAddress(), cause);
                fatal(ErrorResponses.internal(cause, ErrorResponse.FATAL));
            }
            return;
        }
        if (outcome.reply() != null) {
            ctx.write(outcome.reply());
        }
        if (outcome.done()) {
            authenticator = null;
            authenticated();
        } else {
            ctx.flush();
        }
    }

    /** Past authentication: AuthenticationOk, the session, its parameters and key, ReadyForQuery. */
    private void authenticated() {
        StartupInfo info = startupInfo;
        String user = info.user();
        authenticationDeadline.cancel(false);
        ctx.write(AuthenticationOk.INSTANCE);

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
        Session opened = session;
        backendKey = cancelRegistry.register(() -> {
            try {
                opened.cancel();
            } catch (RuntimeException e) {
                LOG.warn("Session.cancel failed", e);
            }
        });
        ctx.write(backendKey);
        try {
            session.started(backendKey.processId(), ctx.channel().remoteAddress());
        } catch (RuntimeException e) {
            LOG.warn("Session.started failed", e);
        }
        extended = new ExtendedQuery(ctx, session);
        state = State.IDLE;
        ctx.writeAndFlush(new ReadyForQuery(transactionStatus()));
        LOG.debug("Connection {} started for user {}, database {}", ctx.channel().remoteAddress(), user,
                info.database());
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
        ctx.writeAndFlush(new ReadyForQuery(transactionStatus()));
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
