package io.coilgun.pgwire;

import io.coilgun.pgwire.auth.Authentication;
import io.coilgun.pgwire.codec.BackendMessageEncoder;
import io.coilgun.pgwire.codec.FrontendMessageDecoder;
import io.coilgun.pgwire.protocol.CancelRegistry;
import io.coilgun.pgwire.protocol.StartupHandler;
import io.coilgun.pgwire.spi.CancelForward;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.SessionFactory;
import io.coilgun.pgwire.tls.ServerTls;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL wire-protocol (v3) server: accepts TCP connections and runs each through
 * {@link FrontendMessageDecoder}, {@link BackendMessageEncoder} and a {@link StartupHandler} that authenticates
 * the client, opens a {@link Session} from the given {@link SessionFactory} and then hands the connection to a
 * query handler that drives the session.
 *
 * <pre>{@code
 * try (PgServer server = PgServer.builder(sessionFactory).port(5433).build()) {
 *     server.start();          // binds, or throws IOException ("port 5433 on 127.0.0.1 is already in use")
 *     int port = server.port(); // the bound port (useful with port 0)
 *     ...
 * }
 * }</pre>
 *
 * <p>Authentication is {@link Authentication#trust() trust} unless {@link Builder#authentication} says otherwise;
 * with {@link Builder#tls}, an SSLRequest is answered 'S' and the connection continues in TLS.
 *
 * <p>Uses the NIO transport: one acceptor thread and a small worker group (2 threads by default) shared by
 * all connections. Session code runs on the worker threads and must not block them.
 */
public final class PgServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PgServer.class);

    public static final String DEFAULT_HOST = "127.0.0.1";
    public static final int DEFAULT_PORT = 5433;
    /** Default largest message accepted from a client, length field included. */
    public static final int DEFAULT_MAX_MESSAGE_SIZE = 16 * 1024 * 1024;
    public static final int DEFAULT_WORKER_THREADS = 2;
    public static final int DEFAULT_MAX_CONNECTIONS = 1000;
    /** As Postgres' authentication_timeout. */
    public static final Duration DEFAULT_AUTHENTICATION_TIMEOUT = Duration.ofSeconds(60);

    private static final BackendMessageEncoder ENCODER = new BackendMessageEncoder();

    private final String host;
    private final int requestedPort;
    private final SessionFactory sessionFactory;
    private final int maxMessageSize;
    private final int workerThreads;
    private final int maxConnections;
    private final Duration idleTimeout;
    private final Authentication authentication;
    private final ServerTls tls;
    private final Duration authenticationTimeout;
    /** Open connections by BackendKeyData, for CancelRequests and the connection limit. */
    private final CancelRegistry connections;

    private EventLoopGroup bossGroup;
    private EventLoopGroup workerGroup;
    private Channel serverChannel;
    private int boundPort = -1;
    private boolean closed;

    /**
     * @param host the address to listen on, e.g. {@code 127.0.0.1} or {@code 0.0.0.0}
     * @param port the TCP port; 0 picks a free one (see {@link #port()})
     * @param sessionFactory opens a session per connection
     * @param maxMessageSize the largest message accepted (bytes, length field included); larger ones end
     *     the connection with an 08P01 error
     */
    public PgServer(String host, int port, SessionFactory sessionFactory, int maxMessageSize) {
        this(host, port, sessionFactory, maxMessageSize, DEFAULT_WORKER_THREADS, DEFAULT_MAX_CONNECTIONS, Duration.ZERO,
                Authentication.trust(), null, DEFAULT_AUTHENTICATION_TIMEOUT, () -> 0);
    }

    private PgServer(String host, int port, SessionFactory sessionFactory, int maxMessageSize, int workerThreads,
            int maxConnections, Duration idleTimeout, Authentication authentication, ServerTls tls,
            Duration authenticationTimeout, IntSupplier processIdSlot) {
        this.connections = new CancelRegistry(processIdSlot);
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be in 0..65535: " + port);
        }
        if (maxMessageSize < 1024) {
            throw new IllegalArgumentException("maxMessageSize must be at least 1024 bytes: " + maxMessageSize);
        }
        if (workerThreads < 1) {
            throw new IllegalArgumentException("workerThreads must be at least 1: " + workerThreads);
        }
        this.host = Objects.requireNonNull(host, "host");
        this.requestedPort = port;
        this.sessionFactory = Objects.requireNonNull(sessionFactory, "sessionFactory");
        this.maxMessageSize = maxMessageSize;
        this.workerThreads = workerThreads;
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections must be at least 1: " + maxConnections);
        }
        this.maxConnections = maxConnections;
        this.idleTimeout = Objects.requireNonNull(idleTimeout, "idleTimeout");
        this.authentication = Objects.requireNonNull(authentication, "authentication");
        this.tls = tls;
        if (authenticationTimeout.isNegative() || authenticationTimeout.isZero()) {
            throw new IllegalArgumentException("authenticationTimeout must be positive: " + authenticationTimeout);
        }
        this.authenticationTimeout = authenticationTimeout;
    }

    public static Builder builder(SessionFactory sessionFactory) {
        return new Builder(sessionFactory);
    }

    /**
     * Binds the port and starts accepting connections; returns once listening.
     *
     * @throws IOException if the address cannot be bound, e.g. "port 5433 on 127.0.0.1 is already in use"
     * @throws IllegalStateException if already started or closed
     */
    public synchronized void start() throws IOException {
        if (bossGroup != null) {
            throw new IllegalStateException("PgServer already started");
        }
        bossGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("pgwire-accept"),
                NioIoHandler.newFactory());
        workerGroup = new MultiThreadIoEventLoopGroup(workerThreads, new DefaultThreadFactory("pgwire"),
                NioIoHandler.newFactory());
        ServerBootstrap bootstrap = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 128)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childOption(ChannelOption.SO_KEEPALIVE, true)
                // Past 256 KiB unsent, the channel turns unwritable and the connection stops reading until the
                // client has caught up: a client that does not read cannot grow the server's memory.
                .childOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(64 * 1024, 256 * 1024))
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        if (!idleTimeout.isZero()) {
                            channel.pipeline().addLast("idle", new IdleStateHandler(0, 0, idleTimeout.toMillis(),
                                    TimeUnit.MILLISECONDS));
                        }
                        channel.pipeline()
                                .addLast("decoder", new FrontendMessageDecoder(maxMessageSize))
                                .addLast("encoder", ENCODER)
                                .addLast("protocol", new StartupHandler(sessionFactory, connections,
                                        maxConnections, authentication, tls, authenticationTimeout));
                    }
                });
        ChannelFuture bind = bootstrap.bind(host, requestedPort).awaitUninterruptibly();
        if (!bind.isSuccess()) {
            shutdownGroups();
            closed = true;
            Throwable cause = bind.cause();
            if (cause instanceof BindException && String.valueOf(cause.getMessage()).contains("in use")) {
                throw new IOException("port " + requestedPort + " on " + host + " is already in use", cause);
            }
            throw new IOException("could not listen on " + host + ":" + requestedPort + ": " + cause, cause);
        }
        serverChannel = bind.channel();
        boundPort = ((InetSocketAddress) serverChannel.localAddress()).getPort();
        LOG.info("pgwire listening on {}:{} (authentication {}, TLS {})", host, boundPort,
                authentication.method().pgName(), tls == null ? "off" : "on");
    }

    /** The port listened on, once started (the actual one when 0 was asked for). */
    public synchronized int port() {
        if (boundPort < 0) {
            throw new IllegalStateException("PgServer not started");
        }
        return boundPort;
    }

    /** From now on, a CancelRequest for a process id this server does not have goes to {@code elsewhere}. */
    public void forwardCancelRequestsTo(CancelForward elsewhere) {
        connections.forwardTo(elsewhere);
    }

    /** A CancelRequest another server forwarded, for a connection of this one: whether it found it and told it. */
    public boolean cancelHere(int processId, int secretKey) {
        return connections.cancelHere(processId, secretKey);
    }

    /** The number of connections past startup. */
    public int connectionCount() {
        return connections.size();
    }

    public String host() {
        return host;
    }

    /** Stops listening, closes every connection (closing its session) and stops the threads. Idempotent. */
    @Override
    public synchronized void close() {
        if (bossGroup == null || closed) {
            return;
        }
        closed = true;
        if (serverChannel != null) {
            serverChannel.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
            serverChannel = null;
        }
        shutdownGroups();
        LOG.info("pgwire on {}:{} stopped", host, boundPort);
    }

    private void shutdownGroups() {
        Future<?> boss = bossGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        Future<?> workers = workerGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        boss.awaitUninterruptibly(3, TimeUnit.SECONDS);
        workers.awaitUninterruptibly(3, TimeUnit.SECONDS);
    }

    /** Builder with the defaults: {@value #DEFAULT_HOST}, port {@value #DEFAULT_PORT}, 16 MiB messages, 2 workers. */
    public static final class Builder {
        private final SessionFactory sessionFactory;
        private String host = DEFAULT_HOST;
        private int port = DEFAULT_PORT;
        private int maxMessageSize = DEFAULT_MAX_MESSAGE_SIZE;
        private int workerThreads = DEFAULT_WORKER_THREADS;
        private IntSupplier processIdSlot = () -> 0;
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private Duration idleTimeout = Duration.ZERO;
        private Authentication authentication = Authentication.trust();
        private ServerTls tls;
        private Duration authenticationTimeout = DEFAULT_AUTHENTICATION_TIMEOUT;

        private Builder(SessionFactory sessionFactory) {
            this.sessionFactory = sessionFactory;
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** 0 picks a free port. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder maxMessageSize(int maxMessageSize) {
            this.maxMessageSize = maxMessageSize;
            return this;
        }

        public Builder workerThreads(int workerThreads) {
            this.workerThreads = workerThreads;
            return this;
        }

        /** More connections are refused at startup with 53300 (too_many_connections). */
        public Builder maxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        /**
         * A connection with no traffic either way for this long, and no statement running, is closed with 57P05
         * (as Postgres' idle_session_timeout). Zero (the default) never closes.
         */
        public Builder idleTimeout(Duration idleTimeout) {
            this.idleTimeout = idleTimeout;
            return this;
        }

        /** How clients authenticate (default {@link Authentication#trust()}). */
        public Builder authentication(Authentication authentication) {
            this.authentication = authentication;
            return this;
        }

        /** The certificate offered on SSLRequest; null (the default) answers 'N'. */
        public Builder tls(ServerTls tls) {
            this.tls = tls;
            return this;
        }

        /**
         * A connection that has not completed its startup and authentication by then is closed without a message
         * (as Postgres' authentication_timeout, default 60 s).
         */
        public Builder authenticationTimeout(Duration authenticationTimeout) {
            this.authenticationTimeout = authenticationTimeout;
            return this;
        }

        /**
         * This server's slot of process ids (see {@link CancelRegistry}), asked at each connection: servers with
         * different slots never give the same process id. 0 (the default): any.
         */
        public Builder processIdSlot(IntSupplier processIdSlot) {
            this.processIdSlot = processIdSlot;
            return this;
        }

        public PgServer build() {
            return new PgServer(host, port, sessionFactory, maxMessageSize, workerThreads, maxConnections,
                    idleTimeout, authentication, tls, authenticationTimeout, processIdSlot);
        }
    }
}
