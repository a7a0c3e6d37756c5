package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
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
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every aggregation over every column type a stream can have, under every window kind, against a real node: each
 * combination is either refused at CREATE METRIC as Postgres refuses it (42883, at the aggregation) or works end to
 * end, with the Postgres type Postgres reports for it in RowDescription, and every value equal to a brute-force oracle
 * of docs/sql.md's semantics: in INSERT … RETURNING (text format through the simple protocol, binary through server
 * prepared statements), in SUBSCRIBE, in SELECT over the metric, and after a restart. The stream is randomized: several
 * keys, out-of-order events within the lateness, NULLs, repeated values, equal timestamps, and text with non-ASCII
 * and supplementary characters for the C collation of MIN and MAX.
 */
@Tag("integration")
@Timeout(600)
class AggregationMatrixIT {
    @TempDir
    Path dir;

    /** A stream column: its name, declared type and what the engine holds it as. */
    enum Col {
        C_SMALL("SMALLINT", Kind.INT), C_INT("INTEGER", Kind.INT), C_BIG("BIGINT", Kind.BIG),
        C_REAL("REAL", Kind.DOUBLE), C_DOUBLE("DOUBLE", Kind.DOUBLE), C_NUM("NUMERIC", Kind.DOUBLE),
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

    enum Kind { INT, BIG, DOUBLE, TEXT, BOOL, TS }

    enum Agg {
        COUNT("COUNT(%s)", "c"), SUM("SUM(%s)", "s"), AVG("AVG(%s)", "a"), STDDEV("STDDEV(%s)", "sd"),
        STDDEV_POP("STDDEV_POP(%s)", "sp"), MIN("MIN(%s)", "mn"), MAX("MAX(%s)", "mx"), LAST("LAST(%s)", "l"),
        PREV("PREV(%s)", "p"), COUNT_DISTINCT("COUNT(DISTINCT %s)", "d");

        final String pattern;
        final String prefix;

        Agg(String pattern, String prefix) {
            this.pattern = pattern;
            this.prefix = prefix;
        }

        /** The Postgres type name of its result over a column of this kind, or null when Postgres has none. */
        String resultType(Kind k) {
            boolean numeric = k == Kind.INT || k == Kind.BIG || k == Kind.DOUBLE;
            return switch (this) {
                case COUNT, COUNT_DISTINCT -> "int8";
                case SUM -> k == Kind.INT ? "int8" : k == Kind.BIG ? "numeric" : k == Kind.DOUBLE ? "float8" : null;
                case AVG, STDDEV, STDDEV_POP -> numeric ? "float8" : null;
                case MIN, MAX -> k == Kind.BOOL ? null : valueType(k);
                case LAST, PREV -> valueType(k);
            };
        }

        static String valueType(Kind k) {
            return switch (k) {
                case INT -> "int4";
                case BIG -> "int8";
                case DOUBLE -> "float8";
                case TEXT -> "text";
                case BOOL -> "bool";
                case TS -> "timestamp";
            };
        }
    }

    /** A window: its metric name, SQL and docs/sql.md interval. */
    record Window(String metric, String sql, char kind, long size, long delay) {
        boolean contains(long t, long clock) {
            long upper = clock - delay;
            return switch (kind) {
                case 'S' -> upper - size < t && t <= upper;
                case 'T' -> Math.floorDiv(upper, size) * size <= t && t <= upper;
                default -> t <= upper;
            };
        }
    }

    static final long SECOND = 1_000_000L;
    static final List<Window> WINDOWS = List.of(
            new Window("sl", "SLIDING 20 SECONDS", 'S', 20 * SECOND, 0),
            new Window("sd", "SLIDING 20 SECONDS DELAYED BY 5 SECONDS", 'S', 20 * SECOND, 5 * SECOND),
            new Window("tu", "TUMBLING 30 SECONDS", 'T', 30 * SECOND, 0),
            new Window("td", "TUMBLING 30 SECONDS DELAYED BY 4 SECONDS", 'T', 30 * SECOND, 4 * SECOND),
            new Window("inf", "INFINITE DELAYED BY 3 SECONDS", 'I', 0, 3 * SECOND));
    static final String[] TEXTS = {"a", "b", "B", "ab", "", "é", "z", "\uE000", "\uD83D\uDE00", "\uFFFD", "zz"};
    static final LocalDateTime T0 = LocalDateTime.of(2026, 1, 1, 10, 0);

    /** One accepted event of the oracle. */
    record Event(long id, long time, String key, Map<Col, Object> values) {
    }

    private final List<Event> accepted = new ArrayList<>();
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
                for (Window w : WINDOWS) {
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
    private static String metricSql(Window w) {
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
                    rs = simple.executeQuery("INSERT INTO m (" + columns + ") VALUES (" + literals(e) + ") RETURNING *");
                } else {
                    bind(prepared, e);
                    rs = prepared.executeQuery();
                }
                try (rs) {
                    assertTrue(rs.next());
                    if (checkTypes && i < 2) {
                        checkRowDescription(rs.getMetaData());
                    }
                    accepted.add(e);
                    List<Object> values = new ArrayList<>();
                    for (Window w : WINDOWS) {
                        Map<String, Object> expected = oracle(w, e.key(), clockOf(e.key()));
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
        for (Window w : WINDOWS) {
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
                case TEXT -> ps.setObject(at, x, Types.VARCHAR);
                case BOOL -> ps.setObject(at, x, Types.BOOLEAN);
                case TS -> ps.setObject(at, x, Types.TIMESTAMP);
            }
            at++;
        }
    }

    /** The group's clock: the largest event time of its accepted events. */
    private long clockOf(String key) {
        long t = Long.MIN_VALUE;
        for (Event e : accepted) {
            if (e.key().equals(key)) {
                t = Math.max(t, e.time());
            }
        }
        return t;
    }

    /** docs/sql.md by brute force: every aggregation of the metric of {@code w} for the group with clock {@code t}. */
    private Map<String, Object> oracle(Window w, String key, long clock) {
        List<Event> in = new ArrayList<>(); // arrival order
        for (Event e : accepted) {
            if (e.key().equals(key) && w.contains(e.time(), clock)) {
                in.add(e);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("cs", (long) in.size());
        for (Col col : Col.values()) {
            List<Object> values = new ArrayList<>();
            List<Event> withValue = new ArrayList<>();
            for (Event e : in) {
                if (e.values().get(col) != null) {
                    values.add(e.values().get(col));
                    withValue.add(e);
                }
            }
            // LAST and PREV: by event time, then arrival (a stable sort of the arrival order)
            withValue.sort((a, b) -> Long.compare(a.time(), b.time()));
            for (Agg agg : Agg.values()) {
                if (agg.resultType(col.kind) == null) {
                    continue;
                }
                out.put(alias(agg, col), switch (agg) {
                    case COUNT -> (long) values.size();
                    case COUNT_DISTINCT -> (long) new HashSet<>(values).size();
                    case SUM -> values.isEmpty() ? null : sum(col.kind, values);
                    case AVG -> values.isEmpty() ? null : doubles(values).stream().mapToDouble(d -> d).sum()
                            / values.size();
                    case STDDEV -> values.size() < 2 ? null : stddev(doubles(values), true);
                    case STDDEV_POP -> values.isEmpty() ? null : stddev(doubles(values), false);
                    case MIN, MAX -> values.isEmpty() ? null : extreme(values, agg == Agg.MIN);
                    case LAST -> withValue.isEmpty() ? null : withValue.get(withValue.size() - 1).values().get(col);
                    case PREV -> withValue.size() < 2 ? null : withValue.get(withValue.size() - 2).values().get(col);
                });
            }
        }
        return out;
    }

    private static Object sum(Kind k, List<Object> values) {
        if (k == Kind.DOUBLE) {
            return doubles(values).stream().mapToDouble(d -> d).sum();
        }
        long s = 0;
        for (Object v : values) {
            s += ((Number) v).longValue();
        }
        return k == Kind.BIG ? (Object) BigDecimal.valueOf(s) : (Object) s;
    }

    private static List<Double> doubles(List<Object> values) {
        return values.stream().map(v -> ((Number) v).doubleValue()).toList();
    }

    private static double stddev(List<Double> values, boolean sample) {
        double mean = values.stream().mapToDouble(d -> d).sum() / values.size();
        double m2 = 0;
        for (double v : values) {
            m2 += (v - mean) * (v - mean);
        }
        return Math.sqrt(m2 / (sample ? values.size() - 1 : values.size()));
    }

    @SuppressWarnings("unchecked")
    private static Object extreme(List<Object> values, boolean min) {
        Object best = null;
        for (Object v : values) {
            int c = best == null ? 0 : v instanceof String a ? cCollation(a, (String) best)
                    : ((Comparable<Object>) v).compareTo(best);
            if (best == null || (min ? c < 0 : c > 0)) {
                best = v;
            }
        }
        return best;
    }

    /** Postgres' C collation: by UTF-8 bytes, i.e. by code points. */
    static int cCollation(String a, String b) {
        return java.util.Arrays.compare(a.codePoints().toArray(), b.codePoints().toArray());
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
    private static void assertSame(Object expected, Object actual, java.util.function.Supplier<String> what) {
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
        Set<String> keys = new HashSet<>();
        for (Event e : accepted) {
            keys.add(e.key());
        }
        for (Window w : WINDOWS) {
            Set<String> seen = new HashSet<>();
            try (ResultSet rs = s.executeQuery("SELECT * FROM " + w.metric())) {
                while (rs.next()) {
                    String key = rs.getString("k");
                    seen.add(key);
                    LocalDateTime streamTime = rs.getObject("stream_time", LocalDateTime.class);
                    assertNotNull(streamTime);
                    long micros = java.time.Duration.between(T0, streamTime).toNanos() / 1000;
                    for (Map.Entry<String, Object> x : oracle(w, key, micros).entrySet()) {
                        Object actual = read(rs, x.getKey(), x.getValue());
                        if (actual instanceof Integer i && x.getValue() instanceof Long) {
                            actual = i.longValue();
                        }
                        assertSame(x.getValue(), actual, () -> "SELECT " + x.getKey() + " FROM " + w.metric()
                                + " WHERE k = '" + key + "'");
                    }
                }
            }
            if (!keys.equals(seen)) {
                fail("SELECT FROM " + w.metric() + " shows groups " + seen + ", expected " + keys);
            }
        }
        assertTrue(Objects.nonNull(s));
    }
}
