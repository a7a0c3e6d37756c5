package io.coilgun.server.boot;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The node's training run before it says ready: synthetic payments through the whole per-event path — a pgjdbc
 * client on the node's own pgwire port, the prepared {@code INSERT … RETURNING} of the README's stream and metrics,
 * the ingest, Kafka, the engine and the replies — until the JIT compiler has compiled what they run (its compile time
 * grows by less than {@link #SETTLED_MS_PER_S} per second), at most {@code maxSeconds}. A JVM's first seconds run
 * interpreted and profiled code: a fresh node answered a tenth of its rate for tens of seconds, and a client pool with
 * one statement in flight per connection fell behind for good (docs/benchmarks.md). On JDK 17 there is no cache of
 * compiled code between runs; this is what takes its place. The stream it uses is the node's own
 * ({@code coilgun_warmup_<node>}), made and dropped here.
 */
final class WarmUp {
    /** Compile time per second below which the JIT has compiled the path (it goes on compiling rarer code). */
    static final long SETTLED_MS_PER_S = 40;
    /**
     * The training's rate in the first half of each second; the second half is left to the compiler's threads (at
     * nice 10 under scripts/coilgun, they starve under a load that fills the cores: with a steady 2,000 events/s the
     * compiler had a tenth of a core, and a node at 1,000/s after it still compiled for 25 s).
     */
    static final int RATE = Integer.getInteger("coilgun.warmUpRate", 2_000);
    static final long PERIOD_NS = 1_000_000_000L;
    static final long ON_NS = Long.getLong("coilgun.warmUpOnMs", 500) * 1_000_000L;
    static final int CONNECTIONS = 8;
    static final int MIN_SECONDS = 4;

    /** What the run did. */
    record Result(long events, long millis, boolean settled) {
    }

    private WarmUp() {
    }

    /**
     * Runs the training against the node at {@code host:port} (trust authentication) and drops its stream. Throws
     * when the node cannot be reached or refuses the stream.
     */
    static Result run(String host, int port, String nodeId, int maxSeconds) throws SQLException, InterruptedException {
        String stream = streamName(nodeId);
        String url = "jdbc:postgresql://" + host + ":" + port + "/coilgun";
        Properties props = new Properties();
        props.setProperty("user", "coilgun");
        props.setProperty("sslmode", "disable");
        props.setProperty("ApplicationName", "coilgun warm-up");
        long start = System.nanoTime();
        try (Connection admin = DriverManager.getConnection(url, props); Statement st = admin.createStatement()) {
            dropIfThere(st, stream); // a training cut short by a crash
            st.execute("CREATE STREAM " + stream + " (id BIGINT, ts TIMESTAMP, card_id VARCHAR, merchant_id VARCHAR, "
                    + "amount DOUBLE) WITH (event_time = 'ts', event_id = 'id', partition_by = 'card_id', "
                    + "partitions = 4)");
            st.execute("CREATE METRIC " + stream + "_5m AS SELECT SUM(amount) AS total, AVG(amount) AS mean, "
                    + "COUNT(*) AS n FROM " + stream + " GROUP BY card_id OVER SLIDING INTERVAL '5' MINUTE");
            st.execute("CREATE METRIC " + stream + "_60m AS SELECT SUM(amount) AS total FROM " + stream
                    + " GROUP BY card_id OVER SLIDING INTERVAL '60' MINUTE");
            try {
                return drive(url, props, stream, maxSeconds, start);
            } finally {
                dropIfThere(st, stream);
            }
        }
    }

    private static Result drive(String url, Properties props, String stream, int maxSeconds,
            long start) throws SQLException, InterruptedException {
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong events = new AtomicLong();
        AtomicReference<SQLException> failure = new AtomicReference<>();
        List<Thread> clients = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int c = 0; c < CONNECTIONS; c++) {
            Connection conn = DriverManager.getConnection(url, props);
            int client = c;
            Thread t = new Thread(() -> {
                try (conn; PreparedStatement insert = conn.prepareStatement("INSERT INTO " + stream
                        + " VALUES (?, ?, ?, ?, ?) RETURNING *")) {
                    send(insert, client, t0, running, events);
                } catch (SQLException e) {
                    failure.compareAndSet(null, e);
                    running.set(false);
                }
            }, "coilgun-warm-up-" + c);
            t.setDaemon(true);
            t.start();
            clients.add(t);
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long compiled = timed ? jit.getTotalCompilationTime() : 0;
        boolean settled = false;
        try {
            for (int s = 1; s <= maxSeconds && running.get(); s++) {
                Thread.sleep(1000);
                long now = timed ? jit.getTotalCompilationTime() : 0;
                long perSecond = now - compiled;
                compiled = now;
                if (timed && s >= MIN_SECONDS && perSecond < SETTLED_MS_PER_S) {
                    settled = true;
                    break;
                }
            }
        } finally {
            running.set(false);
            for (Thread t : clients) {
                t.join(10_000);
            }
        }
        if (failure.get() != null) {
            throw failure.get();
        }
        return new Result(events.get(), (System.nanoTime() - start) / 1_000_000, settled);
    }

    /**
     * One connection's share of the rate, in the first {@link #ON_NS} of each second: event {@code i} of this client
     * is due at {@code t0 + (i / k) s + (i % k) * ON_NS / k}, k events per second.
     */
    private static void send(PreparedStatement insert, int client, long t0, AtomicBoolean running, AtomicLong events)
            throws SQLException {
        long k = Math.max(1, RATE * ON_NS / PERIOD_NS / CONNECTIONS);
        long epochSecond = System.currentTimeMillis() / 1000;
        for (long i = 0; running.get(); i++) {
            long due = t0 + (i / k) * PERIOD_NS + (i % k) * ON_NS / k;
            long wait = due - System.nanoTime();
            if (wait > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(wait);
            }
            long id = i * CONNECTIONS + client;
            insert.setLong(1, id);
            insert.setObject(2, LocalDateTime.ofEpochSecond(epochSecond + id / RATE, (int) (id % RATE) * 1000,
                    ZoneOffset.UTC));
            insert.setString(3, "card-" + (id * 7919 % 50_000));
            insert.setString(4, "merchant-" + (id % 5_000));
            insert.setDouble(5, 1 + (id * 31 % 10_000) / 100.0);
            try (ResultSet rs = insert.executeQuery()) {
                while (rs.next()) {
                    rs.getObject(rs.getMetaData().getColumnCount()); // the client reads what it got, as users do
                }
            }
            events.incrementAndGet();
        }
    }

    private static void dropIfThere(Statement st, String stream) throws SQLException {
        st.execute("DROP STREAM IF EXISTS " + stream + " CASCADE");
    }

    /** {@code coilgun_warmup_<node id>}, the id reduced to what an unquoted name may hold. */
    static String streamName(String nodeId) {
        return "coilgun_warmup_" + nodeId.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    }
}
