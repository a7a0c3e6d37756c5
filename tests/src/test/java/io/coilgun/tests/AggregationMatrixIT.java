package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.coilgun.planner.oracle.Aggregation;
import io.coilgun.planner.oracle.SpecOracle;
import io.coilgun.planner.oracle.Window;
import io.coilgun.planner.oracle.WindowEvents;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every aggregation over every column type a stream can have, under every window kind, against a real node: each
 * combination is either refused at CREATE METRIC as Postgres refuses it (42883, at the aggregation) or works end to
 * end, with the Postgres type Postgres reports for it in RowDescription, and every value equal to the shared
 * brute-force oracle of docs/sql.md's semantics ({@link SpecOracle}): in INSERT … RETURNING (text format through the
 * simple protocol, binary through server prepared statements), in SUBSCRIBE, in SELECT over the metric, and after a
 * restart. The stream is randomized: several keys, out-of-order events within the lateness, NULLs, repeated values,
 * equal timestamps, and text with non-ASCII and supplementary characters for the C collation of MIN and MAX.
 */
@Tag("integration")
@Timeout(600)
@SecondNodeLane
class AggregationMatrixIT {
    @TempDir
    Path dir;

    /** A stream column: its name, declared type and what the engine holds it as. */
    enum Col {
        C_SMALL("SMALLINT", Kind.INT), C_INT("INTEGER", Kind.INT), C_BIG("BIGINT", Kind.BIG),
        C_REAL("REAL", Kind.DOUBLE), C_DOUBLE("DOUBLE", Kind.DOUBLE), C_NUM("NUMERIC", Kind.NUM),
        C_MONEY("NUMERIC(10,2)", Kind.NUM),
        C_VARCHAR("VARCHAR", Kind.TEXT), C_TEXT("TEXT", Kind.TEXT), C_BOOL("BOOLEAN", Kind.BOOL),
        C_TS("TIMESTAMP", Kind.TS);

        final String declared;
        final Kind kind;

        Col(String declared, Kind kind) {
            this.declared = declared;
            this.kind = kind;
        }

        String sql() {
            return name().toLowerCase();
        }
    }

    enum Kind { INT, BIG, DOUBLE, NUM, TEXT, BOOL, TS }

    /** An aggregation: its SQL, the prefix of its alias, and the oracle's. */
    enum Agg {
        COUNT("COUNT(%s)", "c"), SUM("SUM(%s)", "s"), AVG("AVG(%s)", "a"), STDDEV("STDDEV(%s)", "sd"),
        STDDEV_POP("STDDEV_POP(%s)", "sp"), MIN("MIN(%s)", "mn"), MAX("MAX(%s)", "mx"), LAST("LAST(%s)", "l"),
        PREV("PREV(%s)", "p"), COUNT_DISTINCT("COUNT(DISTINCT %s)", "d");

        final String pattern;
        final String prefix;
        final Aggregation oracle;

        Agg(String pattern, String prefix) {
            this.pattern = pattern;
            this.prefix = prefix;
            this.oracle = Aggregation.valueOf(name());
        }

        /** The Postgres type name of its result over a column of this kind, or null when Postgres has none. */
        String resultType(Kind k) {
            boolean numeric = k == Kind.INT || k == Kind.BIG || k == Kind.DOUBLE || k == Kind.NUM;
            return switch (this) {
                case COUNT, COUNT_DISTINCT -> "int8";
                case SUM -> k == Kind.INT ? "int8" : k == Kind.BIG || k == Kind.NUM ? "numeric"
                        : k == Kind.DOUBLE ? "float8" : null;
                case AVG -> k == Kind.NUM ? "numeric" : numeric ? "float8" : null;
                case STDDEV, STDDEV_POP -> numeric ? "float8" : null;
                case MIN, MAX -> k == Kind.BOOL ? null : valueType(k);
                case LAST, PREV -> valueType(k);
            };
        }

        static String valueType(Kind k) {
            return switch (k) {
                case INT -> "int4";
                case BIG -> "int8";
                case DOUBLE -> "float8";
                case NUM -> "numeric";
                case TEXT -> "text";
                case BOOL -> "bool";
                case TS -> "timestamp";
            };
        }
    }

    /** A metric's window: the metric's name, the window's SQL and its docs/sql.md interval. */
    record MetricWindow(String metric, String sql, Window window) {
    }

    static final long SECOND = 1_000_000L;
    static final List<MetricWindow> WINDOWS = List.of(
            new MetricWindow("sl", "SLIDING 20 SECONDS", new Window(Window.Kind.SLIDING, 20 * SECOND, 0)),
            new MetricWindow("sd", "SLIDING 20 SECONDS DELAYED BY 5 SECONDS",
                    new Window(Window.Kind.SLIDING, 20 * SECOND, 5 * SECOND)),
            new MetricWindow("tu", "TUMBLING 30 SECONDS", new Window(Window.Kind.TUMBLING, 30 * SECOND, 0)),
            new MetricWindow("td", "TUMBLING 30 SECONDS DELAYED BY 4 SECONDS",
                    new Window(Window.Kind.TUMBLING, 30 * SECOND, 4 * SECOND)),
            new MetricWindow("inf", "INFINITE DELAYED BY 3 SECONDS", new Window(Window.Kind.INFINITE, 0, 3 * SECOND)));
    static final String[] TEXTS = {"a", "b", "B", "ab", "", "é", "z", "\uE000", "\uD83D\uDE00", "\uFFFD", "zz"};
    static final LocalDateTime T0 = LocalDateTime.of(2026, 1, 1, 10, 0);

    /** An event of the stream: each column's value is of its SQL type's Java class (the oracle's). */
    record Event(long id, long time, String key, Map<Col, Object> values) {
    }

    /** The oracle of each window, in the order of {@link #WINDOWS}. */
    private final List<SpecOracle<Event>> oracles = WINDOWS.stream()
            .map(w -> new SpecOracle<>(w.window(), Event::time, Event::key)).toList();
    private final Random rnd = new Random(20261124);
    private long clock = 0;
    private long nextId = 1;

    @Test
    void everyAggregationOverEveryTypeUnderEveryWindow() throws Exception {
        try (TestNode node = new TestNode(dir)) {
            try (Connection c = node.connect(); Statement s = c.createStatement()) {
                StringBuilder create = new StringBuilder("CREATE STREAM m (id BIGINT, ts TIMESTAMP, k VARCHAR");
                for (Col col : Col.values()) {
                    create.append(", ").append(col.sql()).append(' ').append(col.declared);
                }
                s.execute(create.append(") WITH (event_time = 'ts', event_id = 'id', partition_by = 'k', "
                        + "partitions = 2, lateness = '10 seconds')").toString());
                refusedCombinations(s);
                for (MetricWindow w : WINDOWS) {
                    s.execute(metricSql(w));
                }
            }
            CompletableFuture<Map<Long, List<Object>>> subscribed;
            try (Connection text = node.connect("preferQueryMode=simple&");
                    Connection binary = node.connect("prepareThreshold=-1&binaryTransfer=true&");
                    Connection reader = node.connect()) {
                subscribed = subscribe(node, reader, 120);
                run(text, binary, 120, true);
                Map<Long, List<Object>> fed = subscribed.get(60, TimeUnit.SECONDS);
                assertEquals(120, fed.size(), "SUBSCRIBE rows");
                for (Map.Entry<Long, List<Object>> row : fed.entrySet()) {
                    assertEquals(returned.get(row.getKey()), row.getValue(), "SUBSCRIBE row of event " + row.getKey());
                }
                try (Statement s = text.createStatement()) {
                    selectEqualsOracle(s);
                }
            }
            node.restart();
            try (Connection text = node.connect("preferQueryMode=simple&");
                    Connection binary = node.connect("prepareThreshold=-1&binaryTransfer=true&")) {
                run(text, binary, 100, false);
                try (Statement s = binary.createStatement()) {
                    selectEqualsOracle(s);
                }
            }
        }
    }

    /** Postgres has no sum/avg/stddev of text, boolean or timestamp, nor min/max of boolean: 42883 at the call. */
    private static void refusedCombinations(Statement s) {
        int refused = 0;
        for (Agg agg : Agg.values()) {
            for (Col col : Col.values()) {
                if (agg.resultType(col.kind) != null) {
                    continue;
                }
                String call = String.format(agg.pattern, col.sql());
                String sql = "CREATE METRIC bad AS SELECT COUNT(*) AS n, " + call + " AS x FROM m GROUP BY k OVER "
                        + WINDOWS.get(refused % WINDOWS.size()).sql();
                BadInputIT.expect(s, sql, "42883", sql.indexOf(call) + 1);
                refused++;
            }
        }
        assertEquals(4 * 4 + 2, refused);
    }

    /** One metric per window with every aggregation over every column it applies to. */
    private static String metricSql(MetricWindow w) {
        StringBuilder sql = new StringBuilder("CREATE METRIC ").append(w.metric()).append(" AS SELECT COUNT(*) AS cs");
        for (Col col : Col.values()) {
            for (Agg agg : Agg.values()) {
                if (agg.resultType(col.kind) != null) {
                    sql.append(", ").append(String.format(agg.pattern, col.sql())).append(" AS ")
                            .append(alias(agg, col));
                }
            }
        }
        return sql.append(" FROM m GROUP BY k OVER ").append(w.sql()).toString();
    }

    private static String alias(Agg agg, Col col) {
        return agg.prefix + "_" + col.sql();
    }

    /** The metric values RETURNING answered, by event id: every window's, in creation order. */
    private final Map<Long, List<Object>> returned = new HashMap<>();

    /** Inserts {@code n} random events, alternating text and binary, each checked against the oracle. */
    private void run(Connection text, Connection binary, int n, boolean checkTypes) throws SQLException {
        StringBuilder columns = new StringBuilder("id, ts, k");
        StringBuilder marks = new StringBuilder("?, ?, ?");
        for (Col col : Col.values()) {
            columns.append(", ").append(col.sql());
            marks.append(", ?");
        }
        try (Statement simple = text.createStatement();
                PreparedStatement prepared = binary.prepareStatement("INSERT INTO m (" + columns + ") VALUES ("
                        + marks + ") RETURNING *")) {
            for (int i = 0; i < n; i++) {
                Event e = nextEvent();
                ResultSet rs;
                if (i % 2 == 0) {
                    rs = simple.executeQuery("INSERT INTO m (" + columns + ") VALUES (" + literals(e)
                            + ") RETURNING *");
                } else {
                    bind(prepared, e);
                    rs = prepared.executeQuery();
                }
                try (rs) {
                    assertTrue(rs.next());
                    if (checkTypes && i < 2) {
                        checkRowDescription(rs.getMetaData());
                    }
                    List<Object> values = new ArrayList<>();
                    for (int k = 0; k < WINDOWS.size(); k++) {
                        MetricWindow w = WINDOWS.get(k);
                        Map<String, Object> expected = values(oracles.get(k).accept(e));
                        for (Map.Entry<String, Object> x : expected.entrySet()) {
                            String column = w.metric() + "_" + x.getKey();
                            Object actual = read(rs, column, x.getValue());
                            assertSame(x.getValue(), actual, () -> column + " of event " + e.id() + " ("
                                    + (e.id() % 2 == 1 ? "text" : "binary") + ")");
                            values.add(actual);
                        }
                    }
                    returned.put(e.id(), values);
                }
            }
        }
    }

    private static void checkRowDescription(ResultSetMetaData md) throws SQLException {
        Map<String, String> types = new HashMap<>();
        for (int i = 1; i <= md.getColumnCount(); i++) {
            types.put(md.getColumnName(i), md.getColumnTypeName(i));
        }
        for (MetricWindow w : WINDOWS) {
            assertEquals("int8", types.get(w.metric() + "_cs"));
            for (Col col : Col.values()) {
                for (Agg agg : Agg.values()) {
                    String expected = agg.resultType(col.kind);
                    if (expected != null) {
                        assertEquals(expected, types.get(w.metric() + "_" + alias(agg, col)),
                                agg + "(" + col.declared + ")");
                    }
                }
            }
        }
    }

    private Event nextEvent() {
        clock += rnd.nextInt(4) == 0 ? 0 : (1 + rnd.nextInt(2500)) * 1000L; // equal timestamps happen too
        long t = rnd.nextInt(4) == 0 ? clock - rnd.nextInt(8000) * 1000L : clock; // out of order within lateness
        Map<Col, Object> values = new LinkedHashMap<>();
        for (Col col : Col.values()) {
            values.put(col, rnd.nextInt(7) == 0 ? null : switch (col.kind) {
                case INT -> rnd.nextInt(41) - 20;
                case BIG -> (rnd.nextInt(41) - 20) * 1_000_000_007L;
                case DOUBLE -> (rnd.nextInt(81) - 40) * 0.25; // sums stay exact in a double
                // NUMERIC keeps each value's scale (1.50 stays 1.50), NUMERIC(10,2) the column's
                case NUM -> col == Col.C_MONEY ? BigDecimal.valueOf(rnd.nextInt(200_001) - 100_000, 2)
                        : BigDecimal.valueOf(rnd.nextInt(20_001) - 10_000, rnd.nextInt(4));
                case TEXT -> TEXTS[rnd.nextInt(TEXTS.length)];
                case BOOL -> rnd.nextBoolean();
                case TS -> T0.plusSeconds(rnd.nextInt(50)).plusNanos(rnd.nextInt(4) * 250_000_000L);
            });
        }
        return new Event(nextId++, t, "k" + rnd.nextInt(6), values);
    }

    private static LocalDateTime time(long micros) {
        return T0.plusNanos(micros * 1000);
    }

    private static String literals(Event e) {
        StringBuilder sql = new StringBuilder().append(e.id()).append(", TIMESTAMP '").append(ts(time(e.time())))
                .append("', '").append(e.key()).append('\'');
        for (Object v : e.values().values()) {
            sql.append(", ");
            if (v == null) {
                sql.append("NULL");
            } else if (v instanceof String str) {
                sql.append('\'').append(str.replace("'", "''")).append('\'');
            } else if (v instanceof LocalDateTime t) {
                sql.append("TIMESTAMP '").append(ts(t)).append('\'');
            } else if (v instanceof BigDecimal d) {
                sql.append(d.toPlainString());
            } else {
                sql.append(v);
            }
        }
        return sql.toString();
    }

    private static String ts(LocalDateTime t) {
        return t.toString().replace('T', ' ');
    }

    private static void bind(PreparedStatement ps, Event e) throws SQLException {
        ps.setLong(1, e.id());
        ps.setObject(2, time(e.time()));
        ps.setString(3, e.key());
        int at = 4;
        for (Map.Entry<Col, Object> v : e.values().entrySet()) {
            Object x = v.getValue();
            switch (v.getKey().kind) {
                case INT -> ps.setObject(at, x, Types.INTEGER);
                case BIG -> ps.setObject(at, x, Types.BIGINT);
                case DOUBLE -> ps.setObject(at, x, Types.DOUBLE);
                case NUM -> ps.setBigDecimal(at, (BigDecimal) x);
                case TEXT -> ps.setObject(at, x, Types.VARCHAR);
                case BOOL -> ps.setObject(at, x, Types.BOOLEAN);
                case TS -> ps.setObject(at, x, Types.TIMESTAMP);
            }
            at++;
        }
    }

    /** Every aggregation of a window's metric, by alias, in the metric's column order, over the window's events. */
    private static Map<String, Object> values(WindowEvents<Event> in) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("cs", in.count());
        for (Col col : Col.values()) {
            List<Object> arguments = in.arguments(e -> e.values().get(col));
            for (Agg agg : Agg.values()) {
                if (agg.resultType(col.kind) != null) {
                    out.put(alias(agg, col), agg.oracle.over(arguments));
                }
            }
        }
        return out;
    }

    /** A value of the result set in the class of the expected value. */
    private static Object read(ResultSet rs, String column, Object expected) throws SQLException {
        Object v = rs.getObject(column);
        if (v == null || expected == null) {
            return v;
        }
        if (expected instanceof LocalDateTime) {
            return rs.getObject(column, LocalDateTime.class);
        }
        if (expected instanceof BigDecimal) {
            return rs.getBigDecimal(column);
        }
        return v;
    }

    /** Equal values: doubles of STDDEV and AVG within rounding, numerics by value, the rest exactly. */
    private static void assertSame(Object expected, Object actual, Supplier<String> what) {
        if (expected == null || actual == null) {
            assertEquals(expected, actual, what);
        } else if (expected instanceof Double x && actual instanceof Double y) {
            assertEquals(x, y, Math.abs(x) * 1e-12 + 1e-12, what);
        } else if (expected instanceof BigDecimal x && actual instanceof BigDecimal y) {
            assertEquals(0, x.compareTo(y), () -> what.get() + ": expected " + x + " but was " + y);
        } else {
            assertEquals(expected, actual, what);
        }
    }

    /** SUBSCRIBE to the stream: its rows, by event id, in the form of {@link #returned}. */
    private CompletableFuture<Map<Long, List<Object>>> subscribe(TestNode node, Connection reader, int count)
            throws Exception {
        reader.setAutoCommit(false);
        Statement subscribe = reader.createStatement();
        subscribe.setFetchSize(1);
        CompletableFuture<Map<Long, List<Object>>> rows = CompletableFuture.supplyAsync(() -> {
            Map<Long, List<Object>> out = new HashMap<>();
            try (ResultSet rs = subscribe.executeQuery("SUBSCRIBE m")) {
                ResultSetMetaData md = rs.getMetaData();
                int first = rs.findColumn("sl_cs");
                while (out.size() < count && rs.next()) {
                    List<Object> values = new ArrayList<>();
                    for (int i = first; i <= md.getColumnCount(); i++) {
                        String type = md.getColumnTypeName(i);
                        values.add(rs.getObject(i) == null ? null : type.equals("timestamp")
                                ? rs.getObject(i, LocalDateTime.class) : type.equals("numeric")
                                ? rs.getBigDecimal(i) : rs.getObject(i));
                    }
                    out.put(rs.getLong("id"), values);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
            return out;
        });
        node.awaitSubscriptions(n -> n == 1);
        return rows;
    }

    /** SELECT over each metric: every group as of its task's stream time S, by the oracle with clock S. */
    private void selectEqualsOracle(Statement s) throws SQLException {
        for (int k = 0; k < WINDOWS.size(); k++) {
            MetricWindow w = WINDOWS.get(k);
            SpecOracle<Event> oracle = oracles.get(k);
            Set<String> seen = new HashSet<>();
            try (ResultSet rs = s.executeQuery("SELECT * FROM " + w.metric())) {
                while (rs.next()) {
                    String key = rs.getString("k");
                    seen.add(key);
                    LocalDateTime streamTime = rs.getObject("stream_time", LocalDateTime.class);
                    assertNotNull(streamTime);
                    long micros = Duration.between(T0, streamTime).toNanos() / 1000;
                    for (Map.Entry<String, Object> x : values(oracle.at(key, micros)).entrySet()) {
                        Object actual = read(rs, x.getKey(), x.getValue());
                        if (actual instanceof Integer i && x.getValue() instanceof Long) {
                            actual = i.longValue();
                        }
                        assertSame(x.getValue(), actual, () -> "SELECT " + x.getKey() + " FROM " + w.metric()
                                + " WHERE k = '" + key + "'");
                    }
                }
            }
            if (!oracle.groups().equals(seen)) {
                fail("SELECT FROM " + w.metric() + " shows groups " + seen + ", expected " + oracle.groups());
            }
        }
        assertTrue(Objects.nonNull(s));
    }
}
