package io.coilgun.tests;

import java.math.BigDecimal;
import java.sql.Array;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.postgresql.copy.CopyManager;
import org.postgresql.core.BaseConnection;

/**
 * pgjdbc at its defaults (extended protocol, server-prepared statements after five uses) through the operations of
 * tests/clients/conformance.py, for ClientConformanceIT: one JSON line per operation, as the Python and Node.js
 * clients print them, so compare.py holds pgjdbc's answers from Coilgun to those from PostgreSQL 15 too.
 */
final class PgjdbcConformance {
    private static final String CLIENT = "pgjdbc";
    private static final String SELECT_BY_ID = "SELECT id, ts, card_id, merchant_id, amount FROM payments WHERE id = ?";

    private final String url;
    private long nextId = 700_000;

    private PgjdbcConformance(int port) {
        this.url = "jdbc:postgresql://127.0.0.1:" + port + "/coilgun?user=coilgun&connectTimeout=10";
    }

    /** Every operation's JSON line against the server on {@code port}. */
    static String run(int port) {
        PgjdbcConformance ops = new PgjdbcConformance(port);
        Map<String, Op> all = ops.operations();
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Op> op : all.entrySet()) {
            String line;
            try {
                line = "{\"client\": \"" + CLIENT + "\", \"op\": \"" + op.getKey() + "\", \"ok\": true, \"value\": "
                        + json(op.getValue().run()) + "}";
            } catch (Exception e) {
                String state = e instanceof SQLException sql ? sql.getSQLState() : null;
                line = "{\"client\": \"" + CLIENT + "\", \"op\": \"" + op.getKey() + "\", \"ok\": false, \"sqlstate\": "
                        + json(state) + ", \"error\": " + json(e.getClass().getSimpleName() + ": "
                        + String.valueOf(e.getMessage()).lines().findFirst().orElse("")) + "}";
            }
            out.append(line).append('\n');
        }
        return out.toString();
    }

    interface Op {
        Object run() throws Exception;
    }

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(url);
    }

    private long newId() {
        return ++nextId;
    }

    private Map<String, Op> operations() {
        Map<String, Op> ops = new LinkedHashMap<>();
        ops.put("connect", () -> query("SELECT 1, current_setting('server_version_num')::int >= 150000"));
        ops.put("select_param", () -> query("SELECT id, card_id, amount FROM payments WHERE card_id = ? AND id < 1000 "
                + "ORDER BY id LIMIT 3", "c7"));
        ops.put("select_int_param", () -> query("SELECT id, merchant_id FROM payments WHERE id = ?", 42L));
        ops.put("select_ts_param", () -> query("SELECT count(*) FROM payments WHERE ts > ? AND id < 1000",
                LocalDateTime.of(2026, 1, 2, 7, 40)));
        ops.put("insert_param", () -> {
            long id = newId();
            update("INSERT INTO payments (id, ts, card_id, merchant_id, amount) VALUES (?, ?, ?, ?, ?)", id,
                    LocalDateTime.of(2026, 1, 2, 8, 0, 1), "c1", "m1", 12.5);
            return query(SELECT_BY_ID, id);
        });
        ops.put("insert_expressions", () -> {
            long id = newId();
            update("INSERT INTO payments VALUES (?, TIMESTAMP '2026-01-02 09:00:00' - INTERVAL '1' HOUR, upper('c1'), "
                    + "'m' || '2', -5 * 2)", id);
            long second = newId();
            update("INSERT INTO payments VALUES (?, CAST('2026-01-02 07:59:00' AS TIMESTAMP) + INTERVAL '30' SECOND, "
                    + "lower(concat('C', '1')), CAST(7 * 2 AS VARCHAR), round(2.567, 1) * 2)", second);
            return query("SELECT id, ts, card_id, merchant_id, amount FROM payments WHERE id IN (?, ?) ORDER BY id",
                    id, second);
        });
        ops.put("timestamp_micros", () -> {
            long id = newId();
            update("INSERT INTO payments VALUES (?, ?, 'c1', 'm1', 1.0)", id,
                    LocalDateTime.of(2026, 1, 2, 8, 0, 1, 123_456_000));
            return query(SELECT_BY_ID, id);
        });
        ops.put("timestamp_arithmetic", () -> {
            long id = newId();
            update("INSERT INTO payments VALUES (?, ?, 'c1', 'm1', 1.0)", id,
                    LocalDateTime.of(2026, 1, 2, 8, 0, 1, 123_456_000));
            return query("SELECT ts + INTERVAL '1' SECOND, ts - INTERVAL '1' MONTH, ts::text, "
                    + "(ts + INTERVAL '0.5' SECOND)::text, ts > ?::timestamp, max(ts) OVER () FROM payments WHERE id = ?",
                    LocalDateTime.of(2026, 1, 2, 8, 0, 1, 123_455_000), id);
        });
        ops.put("timestamp_fields", () -> {
            long id = newId();
            update("INSERT INTO payments VALUES (?, ?, 'c1', 'm1', 1.0)", id,
                    LocalDateTime.of(2026, 1, 2, 8, 0, 1, 123_456_000));
            return query("SELECT ts - ?::timestamp, EXTRACT(SECOND FROM ts), EXTRACT(EPOCH FROM ts), "
                    + "EXTRACT(DOW FROM ts), date_trunc('hour', ts), (ts - TIMESTAMP '2026-01-01 00:00:00')::text "
                    + "FROM payments WHERE id = ?", LocalDateTime.of(2026, 1, 1, 7, 0, 0, 1000), id);
        });
        ops.put("keywords_as_names", () -> query("SELECT t.id AS year, t.card_id AS user, 1 AS one, 'x' AS value, "
                + "2 AS select, 3 AS returning FROM payments AS t WHERE t.id = 1"));
        ops.put("unicode", () -> {
            long id = newId();
            update("INSERT INTO payments VALUES (?, ?, 'c1', ?, 1.0)", id, LocalDateTime.of(2026, 1, 2, 8, 0, 2),
                    "héllo ✓ 日本");
            return query("SELECT merchant_id FROM payments WHERE id = ?", id);
        });
        ops.put("executemany", () -> {
            long low = nextId;
            try (Connection c = connect(); PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO payments VALUES (?, ?, ?, ?, ?)")) {
                for (int k = 0; k < 3; k++) {
                    ps.setLong(1, newId());
                    ps.setObject(2, LocalDateTime.of(2026, 1, 2, 8, 1, k));
                    ps.setString(3, "c2");
                    ps.setString(4, "m2");
                    ps.setDouble(5, k);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            return count(low, nextId);
        });
        ops.put("transaction_commit", () -> transaction(false, "2026-01-02 08:02:00"));
        ops.put("transaction_rollback", () -> transaction(true, "2026-01-02 08:03:00"));
        ops.put("savepoint", () -> {
            long low = nextId;
            try (Connection c = connect()) {
                c.setAutoCommit(false);
                String insert = "INSERT INTO payments VALUES (?, '2026-01-02 08:04:00', 'c3', 'm3', 1.0)";
                update(c, insert, newId());
                Savepoint sp = c.setSavepoint();
                update(c, insert, newId());
                c.rollback(sp);
                c.commit();
            }
            return count(low, nextId);
        });
        ops.put("failed_transaction", () -> {
            List<Object> answers = new ArrayList<>();
            try (Connection c = connect()) {
                c.setAutoCommit(false);
                for (String sql : new String[] {"SELECT * FROM no_such_relation", "SELECT 1"}) {
                    try {
                        answers.add(query(c, sql));
                    } catch (SQLException e) {
                        answers.add(e.getSQLState());
                    }
                }
                c.rollback();
                answers.add(query(c, "SELECT 2"));
            }
            return answers;
        });
        ops.put("named_cursor", () -> {
            // pgjdbc's fetch size in a transaction: a portal read 7 rows at a time
            try (Connection c = connect()) {
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement(
                        "SELECT id, card_id FROM payments WHERE id < 1000 ORDER BY id")) {
                    ps.setFetchSize(7);
                    List<Object> first = new ArrayList<>();
                    int rest = 0;
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            if (first.size() < 10) {
                                first.add(List.of(rs.getLong(1), rs.getString(2)));
                            } else {
                                rest++;
                            }
                        }
                    }
                    c.commit();
                    return List.of(first, rest);
                }
            }
        });
        ops.put("copy_from", () -> {
            long low = nextId;
            StringBuilder data = new StringBuilder();
            for (int k = 0; k < 3; k++) {
                data.append(newId()).append(",2026-01-02 08:05:0").append(k).append(",c4,m4,").append(k).append(".5\n");
            }
            try (Connection c = connect()) {
                new CopyManager(c.unwrap(BaseConnection.class)).copyIn("COPY payments (id, ts, card_id, merchant_id, "
                        + "amount) FROM STDIN WITH (FORMAT csv)", new java.io.StringReader(data.toString()));
            }
            return count(low, nextId);
        });
        ops.put("copy_to", () -> {
            java.io.StringWriter out = new java.io.StringWriter();
            try (Connection c = connect()) {
                new CopyManager(c.unwrap(BaseConnection.class)).copyOut("COPY (SELECT id, ts, card_id, amount FROM "
                        + "payments WHERE id <= 3 ORDER BY id) TO STDOUT WITH (FORMAT csv, HEADER)", out);
            }
            return out.toString();
        });
        ops.put("statement_timeout", () -> {
            try (Connection c = connect(); Statement s = c.createStatement()) {
                s.execute("SET statement_timeout = '300ms'");
                Object first = sqlState(() -> s.execute("SELECT pg_sleep(5)"));
                s.execute("RESET statement_timeout");
                return List.of(first, query(c, "SELECT 1"));
            }
        });
        ops.put("cancel", () -> {
            ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
            try (Connection c = connect(); Statement s = c.createStatement()) {
                timer.schedule(() -> {
                    s.cancel();
                    return null;
                }, 500, TimeUnit.MILLISECONDS);
                Object first = sqlState(() -> s.execute("SELECT pg_sleep(5)"));
                return List.of(first, query(c, "SELECT 2"));
            } finally {
                timer.shutdownNow();
            }
        });
        ops.put("numeric_values", () -> {
            BigDecimal big = new BigDecimal("12345678901234567890.123456789");
            return List.of(query("SELECT ?::numeric, ?::numeric * 2, ?::numeric / 3, 1.5::numeric * 3, "
                    + "CAST('12.25' AS numeric), '1.50'::numeric, 1::numeric / 3, 2.5::numeric(1,0), 2 ^ 3, 2.0 ^ 3, "
                    + "2 * 3 ^ 2", big, big, big),
                    // as a new user tries it: each type through a parameter
                    query("SELECT ?::int8, ?::float8, ?::text, ?::timestamp, ?::boolean, ?::numeric", 1L, 1.5, "x",
                            LocalDateTime.of(2026, 1, 2, 8, 0), true, big));
        });
        ops.put("numeric_columns", () -> {
            long i = newId();
            long j = newId();
            update("INSERT INTO prices VALUES (?, ?, 'k', ?, ?)", i, LocalDateTime.of(2026, 1, 2, 8, 0),
                    new BigDecimal("12.345"), new BigDecimal("1.50"));
            update("INSERT INTO prices VALUES (?, TIMESTAMP '2026-01-02 08:00:01', 'k', 7, "
                    + "12345678901234567890.123456789)", j);
            long k = newId();
            Object tooBig = sqlState(() -> update("INSERT INTO prices VALUES (?, TIMESTAMP '2026-01-02 08:00:02', "
                    + "'k', 123456789.5, 1)", k));
            return List.of(query("SELECT id, price, rate FROM prices WHERE id IN (?, ?) ORDER BY id", i, j),
                    query("SELECT sum(price), avg(price), sum(rate), avg(rate), min(rate), max(price) FROM prices "
                            + "WHERE id IN (?, ?)", i, j), tooBig);
        });
        ops.put("types", () -> query("SELECT 1::int2, 2::int4, 3::int8, 1.5::float8, 'x'::text, true, "
                + "'2026-01-01 10:00:00.5'::timestamp, 12.345::numeric(10,3), DATE '2026-01-01', NULL::int"));
        ops.put("information_schema", () -> List.of(
                query("SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'public' "
                        + "ORDER BY 1"),
                query("SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'payments' "
                        + "ORDER BY ordinal_position")));
        ops.put("regclass", () -> query("SELECT 'payments'::regclass::text, CAST('card_5m' AS regclass)::text"));
        ops.put("catalog_functions", () -> query("SELECT has_table_privilege('payments', 'SELECT'), "
                + "pg_table_is_visible('payments'::regclass), obj_description('payments'::regclass, 'pg_class'), "
                + "col_description('payments'::regclass, 1), format('%s-%s', 'a', 1), current_schemas(false)"));
        // untyped parameters (Parse with type 0, as stringtype=unspecified and Types.OTHER send them) passed to
        // functions and operators: each takes the type Postgres' resolution gives it (issue 58)
        ops.put("untyped_parameters", () -> {
            try (Connection c = DriverManager.getConnection(url + "&stringtype=unspecified");
                    PreparedStatement ps = c.prepareStatement("SELECT has_table_privilege(?, ?, 'SELECT'), "
                            + "pg_get_userbyid(?), upper(?), round(?, 1), coalesce(?, 'x'), ? = 'payments'")) {
                ps.setString(1, "coilgun");
                ps.setString(2, "payments");
                ps.setObject(3, "10", java.sql.Types.OTHER);
                ps.setString(4, "abc");
                ps.setObject(5, "2.25", java.sql.Types.OTHER);
                ps.setString(6, "y");
                ps.setString(7, "payments");
                List<Object> row = new ArrayList<>();
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    for (int i = 1; i <= 7; i++) {
                        row.add(rs.getObject(i));
                    }
                }
                return row;
            }
        });
        // Metabase's sync: a relation's name as text, quoted and qualified
        ops.put("relation_name_text", () -> query("SELECT has_table_privilege(current_user, '\"public\".\"payments\"', "
                + "'select'), has_any_column_privilege(current_user, 'PUBLIC.PAYMENTS', 'select'), "
                + "'\"payments\"'::regclass::text, to_regclass('public.\"Payments\"') IS NULL"));
        // preferQueryMode=simple inlines parameters: ... WHERE id >= ('…'::int8) LIMIT ('2'::int4)
        ops.put("simple_mode_limit", () -> {
            try (Connection c = DriverManager.getConnection(url + "&preferQueryMode=simple")) {
                return query(c, "SELECT id FROM payments WHERE id >= ? ORDER BY id LIMIT ? OFFSET ?",
                        -9223372036854775807L, 2, 1);
            }
        });
        ops.put("bare_labels", () -> query("SELECT 1 select, 2 table, id and FROM payments WHERE id = 1"));
        // an interval's days apart from its time, as Postgres holds them: INTERVAL '25' HOUR is 25:00:00
        ops.put("intervals", () -> query("SELECT INTERVAL '25' HOUR, INTERVAL '1' DAY, "
                + "ts - TIMESTAMP '2026-01-01 06:00:00', (INTERVAL '25' HOUR)::text, "
                + "(TIMESTAMP '2026-01-01 06:00:00' - ts)::text, INTERVAL '90' MINUTE * 2 FROM payments WHERE id = 1"));
        ops.put("database_metadata", () -> {
            try (Connection c = connect()) {
                DatabaseMetaData md = c.getMetaData();
                List<Object> tables = new ArrayList<>();
                try (ResultSet rs = md.getTables(null, "public", "%", new String[] {"TABLE", "VIEW"})) {
                    while (rs.next()) {
                        tables.add(List.of(rs.getString("TABLE_NAME"), rs.getString("TABLE_TYPE")));
                    }
                }
                List<Object> columns = new ArrayList<>();
                try (ResultSet rs = md.getColumns(null, "public", "payments", "%")) {
                    while (rs.next()) {
                        columns.add(List.of(rs.getString("COLUMN_NAME"), rs.getString("TYPE_NAME"),
                                rs.getInt("DATA_TYPE"), rs.getInt("ORDINAL_POSITION")));
                    }
                }
                List<Object> keys = new ArrayList<>();
                try (ResultSet rs = md.getPrimaryKeys(null, "public", "payments")) {
                    while (rs.next()) {
                        keys.add(rs.getString("COLUMN_NAME"));
                    }
                }
                return List.of(tables, columns, keys);
            }
        });
        return ops;
    }

    private Object transaction(boolean rollback, String ts) throws SQLException {
        long low = nextId;
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            update(c, "INSERT INTO payments VALUES (?, '" + ts + "', 'c3', 'm3', 1.0)", newId());
            if (rollback) {
                c.rollback();
            } else {
                c.commit();
            }
        }
        return count(low, nextId);
    }

    interface Call {
        void run() throws SQLException;
    }

    private static Object sqlState(Call call) {
        try {
            call.run();
            return "not canceled";
        } catch (SQLException e) {
            return e.getSQLState();
        }
    }

    private Object count(long low, long high) throws SQLException {
        return query("SELECT count(*) FROM payments WHERE id > ? AND id <= ?", low, high);
    }

    private Object query(String sql, Object... params) throws SQLException {
        try (Connection c = connect()) {
            return query(c, sql, params);
        }
    }

    private static Object query(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, params);
            List<Object> rows = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                int n = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    List<Object> row = new ArrayList<>();
                    for (int i = 1; i <= n; i++) {
                        row.add(rs.getObject(i));
                    }
                    rows.add(row);
                }
            }
            return rows;
        }
    }

    private void update(String sql, Object... params) throws SQLException {
        try (Connection c = connect()) {
            update(c, sql, params);
        }
    }

    private static void update(Connection c, String sql, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            bind(ps, params);
            ps.executeUpdate();
        }
    }

    private static void bind(PreparedStatement ps, Object... params) throws SQLException {
        for (int i = 0; i < params.length; i++) {
            ps.setObject(i + 1, params[i]);
        }
    }

    /** A value as JSON, with its Java type where two types would print alike (as conformance.py does). */
    static String json(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Boolean || v instanceof Integer || v instanceof Long || v instanceof Short) {
            return v.toString();
        }
        if (v instanceof String s) {
            StringBuilder b = new StringBuilder("\"");
            for (char ch : s.toCharArray()) {
                switch (ch) {
                    case '"' -> b.append("\\\"");
                    case '\\' -> b.append("\\\\");
                    case '\n' -> b.append("\\n");
                    case '\r' -> b.append("\\r");
                    case '\t' -> b.append("\\t");
                    default -> b.append(ch < 0x20 ? String.format("\\u%04x", (int) ch) : String.valueOf(ch));
                }
            }
            return b.append('"').toString();
        }
        if (v instanceof List<?> list) {
            List<String> items = new ArrayList<>();
            for (Object o : list) {
                items.add(json(o));
            }
            return "[" + String.join(", ", items) + "]";
        }
        if (v instanceof Array a) {
            try {
                return "{\"Array\": " + json(java.util.Arrays.asList((Object[]) a.getArray())) + "}";
            } catch (SQLException e) {
                return json("unreadable array: " + e.getMessage());
            }
        }
        String type = v instanceof java.sql.Timestamp ? "Timestamp" : v instanceof BigDecimal ? "BigDecimal"
                : v.getClass().getSimpleName();
        String text = v instanceof java.sql.Timestamp t ? t.toLocalDateTime().toString() : v.toString();
        return "{" + json(type) + ": " + json(text) + "}";
    }
}
