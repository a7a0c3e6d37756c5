package io.coilgun.pgwire;

import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.CopyIn;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.SessionFactory;
import io.coilgun.pgwire.spi.StartupInfo;
import io.coilgun.pgwire.spi.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * A scripted database for protocol tests. Statements are split on ';'. Any text containing "syntax" fails
 * to parse (42601 at position 5). Statements:
 * <ul>
 *   <li>{@code SET …}: tag SET</li>
 *   <li>{@code SELECT 1}: one int4 row</li>
 *   <li>{@code SELECT many}: rows of several types, including NULL</li>
 *   <li>{@code SLOW}: completes 100 ms later on another thread</li>
 *   <li>{@code SLOW DESCRIBE}: one text row; described only once {@link #describeGate} completes (off the event
 *       loop, as a planned query is)</li>
 *   <li>{@code FAIL}: stage fails with 22012; {@code BOOM}: execute throws an IllegalStateException</li>
 *   <li>{@code FATAL}: stage fails with a FATAL 57P01</li>
 *   <li>{@code ECHO $1 $2 ...}: one row with the parameter values (columns typed as the parameters)</li>
 *   <li>{@code WAIT}: completes only when cancelled (57014)</li>
 *   <li>{@code COPY t (a, b) FROM STDIN [CSV]}: COPY FROM STDIN into {@link #copied}; a field "bad" fails the row</li>
 *   <li>{@code SUBSCRIBE}: a never-ending streamed result (n int8, s text) fed by {@link #push}; cancel fails it</li>
 *   <li>{@code STREAM n}: a streamed result of n rows made as they are pulled ({@link #pulled} counts them)</li>
 *   <li>{@code COPY (SUBSCRIBE | SPECIAL | STREAM n) TO STDOUT [CSV [HEADER]]}: the same rows as COPY data;
 *       SPECIAL has values that need escaping</li>
 * </ul>
 */
final class FakeSessionFactory implements SessionFactory {
    final AtomicInteger opened = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();
    final ConcurrentLinkedQueue<String> executed = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<StartupInfo> startups = new ConcurrentLinkedQueue<>();

    final ConcurrentLinkedQueue<List<String>> copied = new ConcurrentLinkedQueue<>();
    final ConcurrentLinkedQueue<FakeFeed> feeds = new ConcurrentLinkedQueue<>();
    final java.util.concurrent.atomic.AtomicLong pulled = new java.util.concurrent.atomic.AtomicLong();

    /** Completed by a test to let {@code SLOW DESCRIBE}'s Describe answer. */
    static volatile CompletableFuture<Void> describeGate = CompletableFuture.completedFuture(null);
    static final List<Column> FEED = List.of(new Column("n", PgType.INT8), new Column("s", PgType.TEXT));
    static final List<Column> SPECIAL = List.of(new Column("a", PgType.TEXT), new Column("b", PgType.INT4));

    /** Offers row {n, "row n"} to every open SUBSCRIBE (from the calling thread, as a processor unit would). */
    void push(long n) {
        for (FakeFeed feed : feeds) {
            feed.offer(new Object[] {n, "row " + n});
        }
    }

    long openFeeds() {
        return feeds.stream().filter(f -> !f.closed).count();
    }

    /** A subscription: a bounded queue (100 rows) that fails with 54000 when its reader falls behind. */
    static final class FakeFeed implements io.coilgun.pgwire.spi.RowStream {
        private final ConcurrentLinkedQueue<Object[]> rows = new ConcurrentLinkedQueue<>();
        private final AtomicInteger size = new AtomicInteger();
        private volatile Runnable callback = () -> { };
        private volatile PgException failed;
        volatile boolean closed;

        void offer(Object[] row) {
            if (closed) {
                return;
            }
            if (size.incrementAndGet() > 100) {
                failed = new PgException("54000", "subscriber fell behind");
            } else {
                rows.add(row);
            }
            callback.run();
        }

        void fail(PgException e) {
            failed = e;
            callback.run();
        }

        @Override
        public void onAvailable(Runnable callback) {
            this.callback = callback;
        }

        @Override
        public Object[] poll() {
            Object[] row = rows.poll();
            if (row != null) {
                size.decrementAndGet();
                return row;
            }
            if (failed != null) {
                throw failed;
            }
            return null;
        }

        @Override
        public boolean ended() {
            return false;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** n rows of about 200 bytes, made as they are pulled. */
    private io.coilgun.pgwire.spi.RowStream generated(long n) {
        String filler = "x".repeat(200);
        return new io.coilgun.pgwire.spi.RowStream() {
            private long made;

            @Override
            public void onAvailable(Runnable callback) {
            }

            @Override
            public Object[] poll() {
                if (made == n) {
                    return null;
                }
                made++;
                pulled.incrementAndGet();
                return new Object[] {made, filler};
            }

            @Override
            public boolean ended() {
                return made == n;
            }

            @Override
            public void close() {
            }
        };
    }

    private io.coilgun.pgwire.spi.RowStream rowsOf(String upper, List<FakeFeed> mine) {
        if (upper.startsWith("SUBSCRIBE")) {
            FakeFeed feed = new FakeFeed();
            feeds.add(feed);
            mine.add(feed);
            return feed;
        }
        if (upper.startsWith("STREAM ")) {
            return generated(Long.parseLong(upper.substring(7).trim()));
        }
        List<Object[]> rows = new ArrayList<>();
        rows.add(new Object[] {"tab\there", 1});
        rows.add(new Object[] {"new\nline\\back,\"q\"", null});
        rows.add(new Object[] {"", 2});
        return io.coilgun.pgwire.spi.RowStream.of(rows);
    }

    record FakeStatement(String sql, List<PgType> parameterTypes) implements Statement {
        FakeStatement(String sql) {
            this(sql, List.of());
        }
    }

    @Override
    public Session open(StartupInfo startup) {
        if ("refused".equals(startup.database())) {
            throw new PgException("3D000", "database \"refused\" does not exist");
        }
        startups.add(startup);
        opened.incrementAndGet();
        return new FakeSession();
    }

    static final List<Column> MANY = List.of(new Column("id", PgType.INT8), new Column("name", PgType.TEXT),
            new Column("x", PgType.FLOAT8), new Column("ok", PgType.BOOL), new Column("ts", PgType.TIMESTAMP));

    /** Collects rows; applies them (to {@link #copied}) only at finish. */
    private final class FakeCopy implements CopyIn {
        private final boolean csv;
        private final List<List<String>> rows = new ArrayList<>();

        FakeCopy(boolean csv) {
            this.csv = csv;
        }

        @Override
        public List<String> columns() {
            return List.of("a", "b");
        }

        @Override
        public String target() {
            return "t";
        }

        @Override
        public CopyFormat format() {
            return csv ? CopyFormat.csv() : CopyFormat.text();
        }

        @Override
        public List<PgType> columnTypes() {
            return List.of(PgType.TEXT, PgType.TEXT);
        }

        @Override
        public void row(long line, String[] fields) {
            if (Arrays.asList(fields).contains("bad")) {
                throw new PgException("22P02", "invalid input syntax for type integer: \"bad\"");
            }
            rows.add(Arrays.asList(fields));
        }

        @Override
        public CompletionStage<QueryResult> finish() {
            copied.addAll(rows);
            return CompletableFuture.completedFuture(QueryResult.command("COPY " + rows.size()));
        }

        @Override
        public void abort() {
            rows.clear();
        }
    }

    private final class FakeSession implements Session {
        private final AtomicInteger inFlight = new AtomicInteger();
        private boolean inTransaction;

        @Override
        public char transactionStatus() {
            return inTransaction ? 'T' : 'I';
        }
        private boolean closedOnce;

        @Override
        public List<Statement> parse(String sql) {
            if (sql.contains("syntax")) {
                throw new PgException("42601", "syntax error at or near \"syntax\"", 5);
            }
            return Arrays.stream(sql.split(";"))
                    .map(String::trim)
                    .filter(s -> !s.isEmpty())
                    .map(FakeStatement::new)
                    .collect(Collectors.toList());
        }

        @Override
        public Statement prepare(Statement statement, int[] parameterTypeOids) {
            int count = (int) statement.sql().chars().filter(c -> c == '$').count();
            List<PgType> types = new ArrayList<>();
            for (int i = 0; i < Math.max(count, parameterTypeOids.length); i++) {
                PgType declared = i < parameterTypeOids.length ? PgType.of(parameterTypeOids[i]) : null;
                types.add(declared == null ? PgType.TEXT : declared);
            }
            return new FakeStatement(statement.sql(), types);
        }

        @Override
        public CompletionStage<List<Column>> describeLater(Statement statement) {
            if (statement.sql().equalsIgnoreCase("SLOW DESCRIBE")) {
                return describeGate.thenApplyAsync(v -> describe(statement));
            }
            return Session.super.describeLater(statement);
        }

        @Override
        public List<Column> describe(Statement statement) {
            String upper = statement.sql().toUpperCase(Locale.ROOT);
            if (upper.equals("SLOW DESCRIBE")) {
                return List.of(new Column("s", PgType.TEXT));
            }
            if (upper.startsWith("ECHO")) {
                return echoColumns(statement);
            }
            if (upper.startsWith("SUBSCRIBE") || upper.startsWith("STREAM ")) {
                return FEED;
            }
            return switch (upper) {
                case "SELECT 1" -> List.of(new Column("?column?", PgType.INT4));
                case "SELECT MANY" -> MANY;
                default -> List.of();
            };
        }

        private List<Column> echoColumns(Statement statement) {
            List<Column> columns = new ArrayList<>();
            for (int i = 0; i < statement.parameterTypes().size(); i++) {
                columns.add(new Column("p" + (i + 1), statement.parameterTypes().get(i)));
            }
            return columns;
        }

        private volatile CompletableFuture<QueryResult> waiting;
        private final List<FakeFeed> mine = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void cancel() {
            CompletableFuture<QueryResult> w = waiting;
            if (w != null) {
                w.completeExceptionally(new PgException("57014", "canceling statement due to user request"));
            }
            for (FakeFeed feed : mine) {
                if (!feed.closed) {
                    feed.fail(new PgException("57014", "canceling statement due to user request"));
                }
            }
        }

        @Override
        public CompletionStage<QueryResult> execute(Statement statement, List<Object> parameters) {
            if (inFlight.incrementAndGet() != 1) {
                throw new AssertionError("overlapping session calls");
            }
            try {
                String upper = statement.sql().toUpperCase(Locale.ROOT);
                if (upper.startsWith("ECHO")) {
                    executed.add(statement.sql());
                    return CompletableFuture.completedFuture(new QueryResult(echoColumns(statement),
                            List.<Object[]>of(parameters.toArray()), "SELECT 1"));
                }
                if (upper.startsWith("SUBSCRIBE") || upper.startsWith("STREAM ")) {
                    executed.add(statement.sql());
                    return CompletableFuture.completedFuture(QueryResult.stream(FEED, rowsOf(upper, mine),
                            upper.startsWith("SUBSCRIBE") ? "SUBSCRIBE" : "SELECT"));
                }
                if (upper.startsWith("COPY (")) {
                    executed.add(statement.sql());
                    String inner = upper.substring(6, upper.indexOf(')'));
                    CopyFormat format = upper.contains("CSV") ? CopyFormat.csv() : CopyFormat.text();
                    if (upper.contains("HEADER")) {
                        format = format.withHeader(CopyFormat.Header.TRUE);
                    }
                    return CompletableFuture.completedFuture(QueryResult.copyOut(
                            inner.equals("SPECIAL") ? SPECIAL : FEED, rowsOf(inner, mine), format));
                }
                if (upper.startsWith("COPY")) {
                    executed.add(statement.sql());
                    return CompletableFuture.completedFuture(QueryResult.copyIn(new FakeCopy(upper.contains("CSV"))));
                }
                if (upper.equals("WAIT")) {
                    executed.add(statement.sql());
                    waiting = new CompletableFuture<>();
                    return waiting;
                }
                return run(statement.sql());
            } finally {
                inFlight.decrementAndGet();
            }
        }

        private CompletionStage<QueryResult> run(String sql) {
            executed.add(sql);
            String upper = sql.toUpperCase(Locale.ROOT);
            if (upper.startsWith("SET")) {
                return CompletableFuture.completedFuture(QueryResult.command("SET"));
            }
            if (upper.equals("BEGIN") || upper.equals("COMMIT") || upper.equals("ROLLBACK")) {
                inTransaction = upper.equals("BEGIN");
                return CompletableFuture.completedFuture(QueryResult.command(upper));
            }
            switch (upper) {
                case "SELECT 1":
                    return CompletableFuture.completedFuture(new QueryResult(
                            List.of(new Column("?column?", PgType.INT4)), List.<Object[]>of(new Object[] {1}),
                            "SELECT 1"));
                case "SELECT MANY":
                    List<Object[]> rows = new ArrayList<>();
                    rows.add(new Object[] {1L, "one", 15.5, true, LocalDateTime.of(2026, 1, 1, 10, 0, 0, 500_000_000)});
                    rows.add(new Object[] {2L, null, 0.1, false, null});
                    return CompletableFuture.completedFuture(new QueryResult(MANY, rows, "SELECT 2"));
                case "SLOW DESCRIBE":
                    return CompletableFuture.completedFuture(new QueryResult(List.of(new Column("s", PgType.TEXT)),
                            List.<Object[]>of(new Object[] {"described"}), "SELECT 1"));
                case "SLOW":
                    return CompletableFuture.supplyAsync(() -> new QueryResult(
                            List.of(new Column("s", PgType.TEXT)), List.<Object[]>of(new Object[] {"slow"}), "SELECT 1"),
                            CompletableFuture.delayedExecutor(100, TimeUnit.MILLISECONDS));
                case "FAIL":
                    return CompletableFuture.failedFuture(new PgException("22012", "division by zero"));
                case "FATAL":
                    return CompletableFuture.failedFuture(
                            new PgException("57P01", "terminating connection due to administrator command", 0, true));
                case "BOOM":
                    throw new IllegalStateException("boom");
                default:
                    return CompletableFuture.failedFuture(new PgException("0A000", "unknown statement: " + sql));
            }
        }

        @Override
        public Map<String, String> parameterStatus() {
            return Map.of("coilgun_version", "test");
        }

        @Override
        public synchronized void close() {
            if (closedOnce) {
                throw new AssertionError("closed twice");
            }
            closedOnce = true;
            closed.incrementAndGet();
        }
    }
}
