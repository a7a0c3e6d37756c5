package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.oracle.Aggregation;
import io.coilgun.planner.oracle.SpecOracle;
import io.coilgun.planner.oracle.Window;
import io.coilgun.planner.oracle.WindowEvents;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SELECT against a real node: a metric's current values checked against a brute-force oracle of docs/sql.md's window
 * (as of each task's stream time), point reads, ad-hoc SQL over metrics and streams, the system tables, errors with
 * Postgres' SQLSTATEs, the same answers after a restart; pgjdbc's DatabaseMetaData and psql's {@code \d} family.
 */
@Tag("integration")
@Timeout(600)
class SelectIT {
    private static final long MINUTE = 60_000_000L;
    private static final LocalDateTime T0 = LocalDateTime.of(2026, 1, 1, 10, 0);

    @TempDir
    Path dir;

    private record Event(long id, long micros, String card, double amount) {
    }

    @Test
    void metricsStreamsAndSystemTables() throws Exception {
        long seed = Long.getLong("coilgun.seed", System.nanoTime());
        System.out.println("SelectIT seed " + seed + " (replay with -Dcoilgun.seed=" + seed + ")");
        Random random = new Random(seed);
        try (TestNode node = new TestNode(dir.resolve("data")); Connection c = node.connect();
                Statement st = c.createStatement()) {
            st.execute("CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, amount DOUBLE) "
                    + "WITH (event_time = 'ts', event_id = 'id', partition_by = 'card_id', partitions = 4, "
                    + "lateness = '2 minutes')");
            st.execute("CREATE METRIC card_5m AS SELECT SUM(amount) AS total, COUNT(*) AS n, MAX(amount) AS top "
                    + "FROM payments GROUP BY card_id OVER SLIDING 5 MINUTES");

            List<Event> events = new ArrayList<>();
            long time = 0;
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO payments VALUES (?, ?, ?, ?)")) {
                for (int i = 1; i <= 400; i++) {
                    // whole milliseconds (SELECT shows timestamps to the millisecond), up to 4 s apart so that
                    // windows fill and expire, one in five up to a minute late (within the lateness)
                    time += random.nextInt(4_000) * 1000L;
                    long t = Math.max(0, time - (random.nextInt(5) == 0 ? random.nextInt(60_000) * 1000L : 0));
                    Event e = new Event(i, t, "c" + random.nextInt(12), Math.round(random.nextDouble() * 10000) / 100.0);
                    insert.setLong(1, e.id);
                    insert.setObject(2, T0.plusNanos(e.micros * 1000));
                    insert.setString(3, e.card);
                    insert.setDouble(4, e.amount);
                    insert.addBatch();
                    events.add(e);
                    if (i % 50 == 0) {
                        insert.executeBatch();
                    }
                }
            }

            Map<String, List<Object>> rows = metricRows(st, "SELECT * FROM card_5m");
            Set<String> cards = new TreeSet<>();
            events.forEach(e -> cards.add(e.card));
            assertEquals(cards, rows.keySet(), "one row per group the metric saw");
            for (Map.Entry<String, List<Object>> row : rows.entrySet()) {
                long streamMicros = micros((LocalDateTime) row.getValue().get(3));
                assertEquals(oracle(events, row.getKey(), streamMicros), row.getValue().subList(0, 3),
                        "card " + row.getKey() + " as of " + row.getValue().get(3));
            }

            // a point read answers what the scan answered
            try (PreparedStatement ps = c.prepareStatement("SELECT total, n, top, stream_time FROM card_5m "
                    + "WHERE card_id = ?")) {
                for (String card : cards) {
                    ps.setString(1, card);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next());
                        assertEquals(rows.get(card), List.of(rs.getObject(1), rs.getObject(2), rs.getObject(3),
                                rs.getObject(4, LocalDateTime.class)));
                        assertFalse(rs.next());
                    }
                }
                ps.setString(1, "nobody");
                try (ResultSet rs = ps.executeQuery()) {
                    assertFalse(rs.next(), "a group the metric never saw has no row");
                }
            }

            // ad-hoc SQL: joins, GROUP BY, ORDER BY over a metric, a stream and a system table
            try (ResultSet rs = st.executeQuery("SELECT m.card_id, m.n, e.events FROM card_5m m JOIN "
                    + "(SELECT card_id, COUNT(*) AS events FROM payments GROUP BY card_id) e ON e.card_id = m.card_id "
                    + "WHERE m.n > 0 ORDER BY m.n DESC, m.card_id LIMIT 3")) {
                int count = 0;
                long previous = Long.MAX_VALUE;
                while (rs.next()) {
                    count++;
                    assertTrue(rs.getLong(2) <= previous);
                    previous = rs.getLong(2);
                    assertTrue(rs.getLong(3) >= rs.getLong(2), "the stream holds at least the window's events");
                }
                assertEquals(Math.min(3, (int) rows.values().stream().filter(r -> (Long) r.get(1) > 0).count()), count);
            }
            try (ResultSet rs = st.executeQuery("SELECT COUNT(*), SUM(amount) FROM payments")) {
                assertTrue(rs.next());
                assertEquals(400, rs.getLong(1), "all 400 events are recent (within the last hour)");
            }
            try (ResultSet rs = st.executeQuery("SELECT name, partitions, lateness FROM coilgun.streams")) {
                assertTrue(rs.next());
                assertEquals(List.of("payments", 4, "2 MINUTES"), List.of(rs.getString(1), rs.getInt(2),
                        rs.getString(3)));
            }
            // counted by the processor units as they apply; read from the query thread, so a loaded machine may show
            // the count a moment late: wait for it (at most 10 s)
            List<Long> statistics = List.of();
            for (long deadline = System.nanoTime() + 10_000_000_000L; System.nanoTime() < deadline; Thread.sleep(50)) {
                try (ResultSet rs = st.executeQuery("SELECT COUNT(*), SUM(events), SUM(applied) "
                        + "FROM coilgun.statistics")) {
                    assertTrue(rs.next());
                    statistics = List.of(rs.getLong(1), rs.getLong(2), rs.getLong(3));
                }
                if (statistics.equals(List.of(4L, 400L, 400L))) {
                    break;
                }
            }
            assertEquals(List.of(4L, 400L, 400L), statistics);
            try (ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM coilgun.tasks WHERE stream_name = 'payments'")) {
                assertTrue(rs.next());
                assertEquals(4, rs.getInt(1));
            }
            try (ResultSet rs = st.executeQuery("SELECT version(), current_database(), current_schema()")) {
                assertTrue(rs.next());
                assertTrue(rs.getString("version").startsWith("PostgreSQL 15.0 (Coilgun"));
                assertEquals("coilgun", rs.getString("current_database"));
                assertEquals("public", rs.getString("current_schema"));
            }

            // errors a user can cause
            assertState("42P01", 15, () -> st.executeQuery("SELECT * FROM nosuch"));
            assertState("42703", 8, () -> st.executeQuery("SELECT nosuch FROM card_5m"));
            assertState("22012", 0, () -> st.executeQuery("SELECT n / 0 FROM card_5m"));
            assertState("42601", 0, () -> st.executeQuery("SELECT FROM WHERE"));

            node.restart();
            try (Connection again = node.connect(); Statement st2 = again.createStatement()) {
                assertEquals(rows, metricRows(st2, "SELECT * FROM card_5m"), "the same state after a restart");
            }
        }
    }

    @Test
    void databaseMetaDataAndPsql() throws Exception {
        try (TestNode node = new TestNode(dir.resolve("data")); Connection c = node.connect();
                Statement st = c.createStatement()) {
            st.execute("CREATE STREAM payments (id BIGINT NOT NULL, ts TIMESTAMP, card_id VARCHAR, amount DOUBLE) "
                    + "WITH (event_time = 'ts', event_id = 'id', partition_by = 'card_id', partitions = 2)");
            st.execute("CREATE METRIC card_5m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM payments "
                    + "GROUP BY card_id OVER SLIDING 5 MINUTES");
            DatabaseMetaData md = c.getMetaData();
            assertEquals("PostgreSQL", md.getDatabaseProductName());

            Set<String> schemas = new TreeSet<>();
            try (ResultSet rs = md.getSchemas()) {
                while (rs.next()) {
                    schemas.add(rs.getString("TABLE_SCHEM"));
                }
            }
            assertTrue(schemas.containsAll(List.of("public", "coilgun", "pg_catalog", "information_schema")),
                    schemas.toString());

            Map<String, String> tables = new TreeMap<>();
            try (ResultSet rs = md.getTables(null, "public", "%", new String[] {"TABLE"})) {
                while (rs.next()) {
                    tables.put(rs.getString("TABLE_NAME"), rs.getString("TABLE_TYPE"));
                }
            }
            assertEquals(Map.of("card_5m", "TABLE", "payments", "TABLE"), tables);

            List<String> columns = new ArrayList<>();
            try (ResultSet rs = md.getColumns(null, "public", "card_5m", "%")) {
                while (rs.next()) {
                    columns.add(rs.getString("COLUMN_NAME") + " " + rs.getString("TYPE_NAME") + " "
                            + rs.getInt("ORDINAL_POSITION"));
                }
            }
            assertEquals(List.of("card_id varchar 1", "total float8 2", "n int8 3", "stream_time timestamp 4"),
                    columns);
            try (ResultSet rs = md.getColumns(null, "public", "payments", "id")) {
                assertTrue(rs.next());
                assertEquals(DatabaseMetaData.columnNoNulls, rs.getInt("NULLABLE"));
            }
            try (ResultSet rs = md.getPrimaryKeys(null, "public", "payments")) {
                assertFalse(rs.next(), "streams have no primary key");
            }
            try (ResultSet rs = md.getIndexInfo(null, "public", "payments", false, true)) {
                assertFalse(rs.next());
            }
            Set<String> types = new TreeSet<>();
            try (ResultSet rs = md.getTypeInfo()) {
                while (rs.next()) {
                    types.add(rs.getString("TYPE_NAME"));
                }
            }
            assertTrue(types.containsAll(List.of("int8", "float8", "varchar", "timestamp", "bool")), types.toString());
            try (ResultSet rs = md.getCatalogs()) {
                assertTrue(rs.next());
                assertEquals("coilgun", rs.getString(1));
            }

            int port = node.port();
            assertEquals(List.of("public|card_5m|table|coilgun", "public|payments|table|coilgun"),
                    PsqlReadmeIT.psql(port, "-c", "\\dt"));
            List<String> d = PsqlReadmeIT.psql(port, "-c", "\\d payments");
            assertEquals(List.of("id|bigint||not null|", "ts|timestamp without time zone|||",
                    "card_id|character varying|||", "amount|double precision|||"), d);
            assertEquals(List.of("card_id|character varying|||", "total|double precision|||", "n|bigint|||",
                    "stream_time|timestamp without time zone|||"), PsqlReadmeIT.psql(port, "-c", "\\d card_5m"));
            assertTrue(PsqlReadmeIT.psql(port, "-c", "\\l").get(0).startsWith("coilgun|coilgun|UTF8|"));
            assertEquals(List.of("coilgun|coilgun", "public|coilgun"), PsqlReadmeIT.psql(port, "-c", "\\dn"));
            // failed_events, metrics, nodes, partitioners, sinks, source_errors, sources, statistics, streams, tasks
            assertEquals(10, PsqlReadmeIT.psql(port, "-c", "\\dt coilgun.*").size(), "the system tables");
        }
    }

    /** The metric's rows by card: total, n, top, stream_time. */
    private static Map<String, List<Object>> metricRows(Statement st, String sql) throws SQLException {
        Map<String, List<Object>> rows = new TreeMap<>();
        try (ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                rows.put(rs.getString("card_id"), List.of(rs.getObject("total"), rs.getObject("n"),
                        rs.getObject("top"), rs.getObject("stream_time", LocalDateTime.class)));
            }
        }
        return rows;
    }

    /**
     * SUM, COUNT and MAX over the card's window of 5 minutes ending at S, as the shared oracle of docs/sql.md's
     * window semantics gives it; the SUM exact (BigDecimal), as the engine's is: compared without a tolerance.
     */
    private static List<Object> oracle(List<Event> events, String card, long s) {
        SpecOracle<Event> oracle = new SpecOracle<>(new Window(Window.Kind.SLIDING, 5 * MINUTE, 0), Event::micros,
                Event::card);
        events.forEach(oracle::accept);
        WindowEvents<Event> window = oracle.at(card, s);
        BigDecimal sum = BigDecimal.ZERO;
        for (Event e : window.events()) {
            sum = sum.add(new BigDecimal(e.amount));
        }
        List<Object> out = new ArrayList<>();
        out.add(window.count() == 0 ? null : sum.doubleValue());
        out.add(window.count());
        out.add(window.aggregate(Aggregation.MAX, Event::amount));
        return out;
    }

    private static long micros(LocalDateTime t) {
        return java.time.Duration.between(T0, t).toNanos() / 1000;
    }

    private interface Call {
        void run() throws SQLException;
    }

    private static void assertState(String state, int position, Call call) {
        SQLException e = assertThrows(SQLException.class, call::run);
        assertEquals(state, e.getSQLState(), e.getMessage());
        if (position > 0) {
            var server = ((org.postgresql.util.PSQLException) e).getServerErrorMessage();
            assertEquals(position, server.getPosition(), e.getMessage());
        }
    }
}
