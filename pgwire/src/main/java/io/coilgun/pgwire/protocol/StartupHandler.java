package io.coilgun.pgwire.protocol;

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
import io.coilgun.pgwire.codec.FrontendMessage.CancelRequest;
import io.coilgun.pgwire.codec.FrontendMessage.Close;
import io.coilgun.pgwire.codec.FrontendMessage.CopyData;
import io.coilgun.pgwire.codec.FrontendMessage.CopyFail;
import io.coilgun.pgwire.codec.FrontendMessage.Describe;
import io.coilgun.pgwire.codec.FrontendMessage.Execute;
import io.coilgun.pgwire.codec.FrontendMessage.MalformedMessage;
import io.coilgun.pgwire.codec.FrontendMessage.OtherMessage;
import io.coilgun.pgwire.codec.FrontendMessage.Parse;
import io.coilgun.pgwire.codec.FrontendMessage.PasswordMessage;
import io.coilgun.pgwire.codec.FrontendMessage.Query;
import io.coilgun.pgwire.codec.FrontendMessage.StartupMessage;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.SessionFactory;
import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.pgwire.spi.StartupInfo;
import io.coilgun.pgwire.tls.ServerTls;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first phase of one connection, up to the ReadyForQuery that ends its startup
 * (https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-START-UP):
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
 *  ── STARTED: this handler is replaced by a {@link QueryHandler} for the session ──
 * </pre>
 *
 * <p>All methods run on the channel's event loop, so the fields need no locking. While a clear-text password is
 * checked off the event loop, reading pauses and messages already decoded are queued; the {@link QueryHandler}
 * takes the queue over and handles them first.
 */
public final class StartupHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(StartupHandler.class);

    /** Where the connection is in the startup above. */
    enum State {
        /** Before the StartupMessage (SSLRequest/GSSENCRequest may come first). */
        AWAITING_STARTUP,
        /** After the StartupMessage, until the password or SCRAM exchange succeeds. */
        AUTHENTICATING,
        /** ReadyForQuery was sent: the {@link QueryHandler} has the connection. */
        STARTED,
        /** A CancelRequest, Terminate, a FATAL error or a disconnect: nothing more is read. */
        CLOSED
    }

    private final SessionFactory sessionFactory;
    private final CancelRegistry cancelRegistry;
    private final int maxConnections;
    private final Authentication authentication;
    /** Null when no certificate is configured: SSLRequest is answered 'N'. */
    private final ServerTls tls;
    /** Closes the connection if it is not past authentication by then (Postgres' authentication_timeout). */
    private final Duration authenticationTimeout;
    /** Messages that arrived while a password was checked (or the channel was not writable), in order. */
    private final ArrayDeque<FrontendMessage> pending = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private State state = State.AWAITING_STARTUP;
    private ScheduledFuture<?> authenticationDeadline;
    private boolean tlsStarted;
    /** The exchange under way in AUTHENTICATING, and the startup it authenticates. */
    private Authenticator authenticator;
    private StartupInfo startupInfo;
    /** True while a password check runs off the event loop: messages wait in {@link #pending}. */
    private boolean checkingPassword;
    /** The session opened, until it is handed to the {@link QueryHandler}. */
    private Session session;
    private BackendKeyData backendKey;

    public StartupHandler(SessionFactory sessionFactory) {
        this(sessionFactory, new CancelRegistry(), Integer.MAX_VALUE);
    }

    /**
     * @param cancelRegistry the server's open connections (shared by all handlers)
     * @param maxConnections refuse a startup when this many connections are open already
     */
    public StartupHandler(SessionFactory sessionFactory, CancelRegistry cancelRegistry, int maxConnections) {
        this(sessionFactory, cancelRegistry, maxConnections, Authentication.trust(), null, Duration.ofSeconds(60));
    }

    /**
     * @param authentication how clients prove who they are
     * @param tls the certificate to offer on SSLRequest, or null to answer 'N'
     * @param authenticationTimeout a connection not past authentication by then is closed, silently as Postgres
     */
    public StartupHandler(SessionFactory sessionFactory, CancelRegistry cancelRegistry, int maxConnections,
            Authentication authentication, ServerTls tls, Duration authenticationTimeout) {
        this.sessionFactory = sessionFactory;
        this.cancelRegistry = cancelRegistry;
        this.maxConnections = maxConnections;
        this.authentication = authentication;
        this.tls = tls;
        this.authenticationTimeout = authenticationTimeout;
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
    public void handlerRemoved(ChannelHandlerContext ctx) {
        authenticationDeadline.cancel(false);
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
        if (checkingPassword || !pending.isEmpty() || !ctx.channel().isWritable()) {
            pending.add(message);
            if (!ctx.channel().isWritable()) {
                ctx.flush();
                ctx.channel().config().setAutoRead(false); // as in the query phase (a startup's few bytes never get here)
            }
            return;
        }
        handle(message);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        authenticationDeadline.cancel(false);
        state = State.CLOSED;
        pending.clear();
        cancelRegistry.unregister(backendKey);
        closeSession(); // opened but not handed over: the startup failed after SessionFactory.open
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ConnectionEnd.failed(ctx, cause, LOG, () -> state = State.CLOSED, this::fatal);
    }

    private void handle(FrontendMessage message) {
        try {
            if (message instanceof MalformedMessage malformed) {
                fatal(ErrorResponses.fatal(SqlStates.PROTOCOL_VIOLATION, malformed.reason()));
            } else if (state == State.AWAITING_STARTUP) {
                beforeStartup(message);
            } else {
                authenticationMessage(message);
            }
        } catch (RuntimeException e) {
            LOG.warn("Unexpected error handling {} on connection {}", message, ctx.channel().remoteAddress(), e);
            fatal(ErrorResponses.internal(e, ErrorResponse.FATAL));
        }
    }

    private void beforeStartup(FrontendMessage message) {
        if (message == FrontendMessage.SslRequest.INSTANCE && tls != null && !tlsStarted) {
            tlsStarted = true;
            // 'S' leaves in clear; everything after it, both ways, goes through TLS. The client sends nothing
            // before reading 'S' (the decoder refuses bytes that came with the request), so nothing is misread.
            ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'S'}));
            ctx.pipeline().addFirst("tls", tls.newHandler(ctx.alloc()));
        } else if (message == FrontendMessage.SslRequest.INSTANCE
                || message == FrontendMessage.GssEncRequest.INSTANCE) {
            ctx.writeAndFlush(Unpooled.wrappedBuffer(new byte[] {'N'})); // no encryption; the client goes on
        } else if (message instanceof CancelRequest cancel) {
            boolean found = cancelRegistry.cancel(cancel.processId(), cancel.secretKey());
            LOG.debug("CancelRequest for process {}: {}", cancel.processId(), found ? "sent" : "no such connection");
            state = State.CLOSED;
            ctx.close(); // Postgres answers nothing either way
        } else if (message instanceof StartupMessage startup) {
            startup(startup);
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
        if (!(message instanceof PasswordMessage password)) {
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
        ctx.channel().config().setAutoRead(false); // the QueryHandler reads on once the session has started
        outcome.whenComplete((result, error) -> ctx.executor().execute(() -> {
            checkingPassword = false;
            if (state == State.AUTHENTICATING) {
                authenticationStep(outcome);
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

    /**
     * Past authentication: AuthenticationOk, the session, its parameters and key, ReadyForQuery; then the
     * {@link QueryHandler} takes the connection over.
     */
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
        ctx.writeAndFlush(new ReadyForQuery(QueryHandler.transactionStatus(session)));
        LOG.debug("Connection {} started for user {}, database {}", ctx.channel().remoteAddress(), user,
                info.database());
        handOver();
    }

    /** Replaces this handler with a {@link QueryHandler} for the session, which handles any queued messages. */
    private void handOver() {
        QueryHandler queries = new QueryHandler(session, cancelRegistry, backendKey, pending);
        state = State.STARTED;
        session = null; // the QueryHandler closes it
        ctx.pipeline().replace(this, ctx.name(), queries);
    }

    /** Sends a FATAL ErrorResponse and closes the connection. */
    private void fatal(BackendMessage error) {
        state = State.CLOSED;
        pending.clear();
        cancelRegistry.unregister(backendKey);
        ConnectionEnd.sendFatal(ctx, error);
    }

    private void closeSession() {
        if (session != null) {
            Session opened = session;
            session = null;
            try {
                opened.close();
            } catch (RuntimeException e) {
                LOG.warn("Session.close failed for connection {}", ctx.channel().remoteAddress(), e);
            }
        }
    }
}
