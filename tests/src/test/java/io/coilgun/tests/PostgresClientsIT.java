package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.postgresql.PGConnection;
import org.postgresql.util.PSQLException;

/**
 * Ordinary Postgres clients against a real node with no special flags: pgjdbc in its default extended-protocol
 * mode (server-prepared statements, binary transfer, batches rewritten into multi-row INSERTs, transactions,
 * COPY through CopyManager).
 */
@Tag("integration")
@Timeout(300)
class PostgresClientsIT {
    @TempDir
    static Path dir;
    private static TestNode node;

    @BeforeAll
    static void start() throws SQLException {
        node = new TestNode(dir);
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE, n INTEGER, ok BOOLEAN) "
                    + "WITH (event_time = 'ts', event_id = 'id', partition_by = 'card', partitions = 2, lateness = '1 day')");
            s.execute("CREATE METRIC per_card AS SELECT SUM(amount) AS total, COUNT(*) AS cnt FROM pay "
                    + "GROUP BY card OVER SLIDING INTERVAL '1' HOUR");
        }
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    private static final LocalDateTime T0 = LocalDateTime.of(2026, 1, 1, 10, 0);
    /** The prepared INSERT the tests use with {@link #insert}. */
    private static final String INSERT_RETURNING =
            "INSERT INTO pay (id, ts, card, amount) VALUES (?, ?, ?, ?) RETURNING *";

    /** INSERT ... RETURNING * through a prepared statement: the card's total and count after the event. */
    private static double[] insert(PreparedStatement ps, long id, LocalDateTime ts, String card, double amount)
            throws SQLException {
        ps.setLong(1, id);
        ps.setObject(2, ts);
        ps.setString(3, card);
        ps.setDouble(4, amount);
        try (ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next());
            assertEquals(id, rs.getLong("id"));
            double[] result = {rs.getDouble("per_card_total"), rs.getLong("per_card_cnt")};
            assertFalse(rs.next());
            return result;
        }
    }

    @Test
    void preparedInsertsInTextAndBinary() throws SQLException {
        String[] modes = {"", "prepareThreshold=0&", "prepareThreshold=1&binaryTransfer=false&"};
        for (int m = 0; m < modes.length; m++) {
            String mode = modes[m];
            String card = "prep-" + m;
            long base = 1_000 + m * 100L;
            try (Connection c = node.connect(mode);
                    PreparedStatement ps = c.prepareStatement(INSERT_RETURNING)) {
                for (int i = 0; i < 6; i++) { // past pgjdbc's prepareThreshold (5): named statements, binary
                    double[] r = insert(ps, base + i, T0.plusMinutes(i), card, 1.5);
                    assertEquals(1.5 * (i + 1), r[0], 1e-9, mode);
                    assertEquals(i + 1, r[1], mode);
                }
            }
        }
    }

    @Test
    void batchesBecomeMultiRowInserts() throws SQLException {
        try (Connection c = node.connect("reWriteBatchedInserts=true&");
                PreparedStatement ps = c.prepareStatement("INSERT INTO pay VALUES (?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < 50; i++) {
                ps.setLong(1, 5_000 + i);
                ps.setObject(2, T0.plusSeconds(i));
                ps.setString(3, "batch");
                ps.setDouble(4, 2.0);
                ps.setInt(5, i);
                ps.setBoolean(6, i % 2 == 0);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            assertEquals(50, java.util.Arrays.stream(counts).map(n -> n == Statement.SUCCESS_NO_INFO ? 1 : n).sum());
            try (PreparedStatement one = c.prepareStatement(INSERT_RETURNING)) {
                double[] r = insert(one, 5_050, T0.plusSeconds(50), "batch", 0.5);
                assertEquals(100.5, r[0], 1e-9);
                assertEquals(51, r[1]);
            }
        }
    }

    @Test
    void aFailingMultiRowInsertAppliesNothingAndSaysWhichRow() throws SQLException {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            PSQLException e = assertThrows(PSQLException.class, () -> s.executeUpdate(
                    "INSERT INTO pay (id, ts, card, amount) VALUES (7000, '2026-01-01 10:00', 'atomic', 1), "
                            + "(7001, '2026-01-01 10:01', 'atomic', 'lots')"));
            assertEquals("22P02", e.getSQLState());
            assertTrue(e.getServerErrorMessage().getPosition() > 0, e.getMessage());
            try (PreparedStatement ps = c.prepareStatement(INSERT_RETURNING)) {
                assertEquals(1, insert(ps, 7002, T0.plusMinutes(2), "atomic", 1.0)[1]);
            }
        }
    }

    @Test
    void transactionsSettingsAndTypes() throws SQLException {
        try (Connection c = node.connect()) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO pay (id, ts, card, amount) VALUES (8000, '2026-01-01 10:00', 'tx', 3)");
            }
            c.commit();
            c.setAutoCommit(true);
            try (Statement s = c.createStatement()) {
                s.execute("SET application_name = 'coilgun-test'");
                try (ResultSet rs = s.executeQuery("SHOW application_name")) {
                    assertTrue(rs.next());
                    assertEquals("coilgun-test", rs.getString(1));
                }
                try (ResultSet rs = s.executeQuery("SHOW transaction isolation level")) {
                    assertTrue(rs.next());
                    assertEquals("read committed", rs.getString(1));
                }
                assertEquals("read committed", isolationName(c));
                PSQLException unknown = assertThrows(PSQLException.class, () -> s.executeQuery("SHOW no_such_thing"));
                assertEquals("42704", unknown.getSQLState());
                PSQLException noParam = assertThrows(PSQLException.class, () -> s.executeUpdate(
                        "INSERT INTO pay (id, ts, card, amount) VALUES ($1, '2026-01-01 10:00', 'x', 1)"));
                assertEquals("08P01", noParam.getSQLState(), noParam.getMessage()); // Bind supplies none
            }
        }
    }

    private static String isolationName(Connection c) throws SQLException {
        return c.getTransactionIsolation() == Connection.TRANSACTION_READ_COMMITTED ? "read committed"
                : String.valueOf(c.getTransactionIsolation());
    }

    @Test
    void copyFromStdinAppliesAllRowsOrNone() throws Exception {
        try (Connection c = node.connect()) {
            var copy = c.unwrap(PGConnection.class).getCopyAPI();
            long n = copy.copyIn("COPY pay (id, ts, card, amount) FROM STDIN WITH (FORMAT csv, HEADER true)",
                    new StringReader("id,ts,card,amount\n9000,2026-01-01 10:00:00,copy,1.25\n"
                            + "9001,2026-01-01 10:00:01,copy,2.75\n9002,2026-01-01 10:00:02,copy,\"3\"\n"));
            assertEquals(3, n);
            PSQLException bad = assertThrows(PSQLException.class, () -> copy.copyIn(
                    "COPY pay (id, ts, card, amount) FROM STDIN",
                    new StringReader("9003\t2026-01-01 10:00:03\tcopy\t1\n9004\tyesterday\tcopy\t1\n")));
            assertEquals("22007", bad.getSQLState());
            assertTrue(bad.getServerErrorMessage().getWhere().contains("line 2"), bad.getMessage());
            try (PreparedStatement ps = c.prepareStatement(INSERT_RETURNING)) {
                double[] r = insert(ps, 9005, T0.plusSeconds(5), "copy", 1.0);
                assertEquals(8.0, r[0], 1e-9); // 1.25 + 2.75 + 3 + 1: nothing of the failed COPY
                assertEquals(4, r[1]);
            }
            PSQLException noStream = assertThrows(PSQLException.class,
                    () -> copy.copyIn("COPY nope FROM STDIN", new StringReader("")));
            assertEquals("42P01", noStream.getSQLState());
        }
    }

    /** Postgres' binary COPY format (pgx's CopyFrom and other bulk loaders send it): all rows or none. */
    @Test
    void binaryCopyFromStdin() throws Exception {
        try (Connection c = node.connect()) {
            var copy = c.unwrap(PGConnection.class).getCopyAPI();
            long n = copy.copyIn("COPY pay (id, ts, card, amount, ok) FROM STDIN (FORMAT binary)",
                    new java.io.ByteArrayInputStream(binaryCopy(9100, 3, false)));
            assertEquals(3, n);
            PSQLException bad = assertThrows(PSQLException.class, () -> copy.copyIn(
                    "COPY pay (id, ts, card, amount, ok) FROM STDIN BINARY",
                    new java.io.ByteArrayInputStream(binaryCopy(9110, 3, true))));
            assertEquals("22P04", bad.getSQLState());
            assertEquals("COPY pay, line 3", bad.getServerErrorMessage().getWhere());
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*), sum(amount), min(card), count(ok) FROM pay "
                            + "WHERE id BETWEEN 9100 AND 9120")) {
                assertTrue(rs.next());
                assertEquals(3, rs.getLong(1), "nothing of the failed COPY");
                assertEquals(0.5 + 1.5 + 2.5, rs.getDouble(2));
                assertEquals("bin", rs.getString(3));
                assertEquals(2, rs.getLong(4), "one NULL");
            }
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT ts FROM pay WHERE id = 9102")) {
                assertTrue(rs.next());
                assertEquals(T0.plusSeconds(2).plusNanos(123_456_000), rs.getObject(1, LocalDateTime.class));
            }
            PSQLException options = assertThrows(PSQLException.class, () -> copy.copyIn(
                    "COPY pay (id) FROM STDIN (FORMAT binary, DELIMITER ',')", new StringReader("")));
            assertEquals("42601", options.getSQLState());
        }
    }

    /** {@code rows} rows of (id, ts, card, amount, ok) in Postgres' binary COPY format; the last one bad if asked. */
    private static byte[] binaryCopy(long firstId, int rows, boolean lastBad) throws java.io.IOException {
        var bytes = new java.io.ByteArrayOutputStream();
        var out = new java.io.DataOutputStream(bytes);
        out.write("PGCOPY\n\377\r\n\0".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
        out.writeInt(0);
        out.writeInt(0);
        long t0 = java.time.Duration.between(LocalDateTime.of(2000, 1, 1, 0, 0), T0).toNanos() / 1000;
        for (int i = 0; i < rows; i++) {
            out.writeShort(lastBad && i == rows - 1 ? 4 : 5);
            out.writeInt(8);
            out.writeLong(firstId + i);
            out.writeInt(8);
            out.writeLong(t0 + i * 1_000_000L + 123_456);
            out.writeInt(3);
            out.write("bin".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            out.writeInt(8);
            out.writeDouble(i + 0.5);
            if (i == 1) {
                out.writeInt(-1);
            } else {
                out.writeInt(1);
                out.writeByte(1);
            }
        }
        out.writeShort(-1);
        return bytes.toByteArray();
    }

    @Test
    void simpleQueryModeStillWorks() throws SQLException {
        try (Connection c = node.connect("preferQueryMode=simple&"); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("INSERT INTO pay (id, ts, card, amount) "
                        + "VALUES (9500, '2026-01-01 10:00', 'simple', 4) RETURNING *")) {
            assertTrue(rs.next());
            assertArrayEquals(new double[] {4.0, 1}, new double[] {rs.getDouble("per_card_total"),
                    rs.getLong("per_card_cnt")});
        }
    }

    /**
     * Parameters sent untyped, as node-postgres sends every value (pgjdbc's {@code stringtype=unspecified}), or
     * as date-time objects, take the type the query gives them; a value not of that type is Postgres' error with
     * the parameter's number, never an internal one.
     */
    @Test
    void untypedAndDateTimeParametersTakeTheirTypeFromTheQuery() throws SQLException {
        try (Connection c = node.connect()) {
            try (PreparedStatement ps = c.prepareStatement(INSERT_RETURNING)) {
                insert(ps, 9600, T0.plusMinutes(1), "untyped", 2.5);
                insert(ps, 9601, T0.plusMinutes(2), "untyped", 4.0);
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT count(*) FROM pay WHERE id = ? AND ts > ? AND card = ? AND amount > ?")) {
                var md = ps.getParameterMetaData(); // Parse + Describe: ParameterDescription
                assertEquals("int8,timestamp,text,float8", md.getParameterTypeName(1) + ","
                        + md.getParameterTypeName(2) + "," + md.getParameterTypeName(3) + ","
                        + md.getParameterTypeName(4));
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pay WHERE card = ? AND ts > ?")) {
                ps.setString(1, "untyped");
                ps.setObject(2, T0.plusSeconds(90)); // a LocalDateTime compared with a timestamp column
                assertEquals(1, single(ps));
            }
        }
        try (Connection c = node.connect("stringtype=unspecified&")) {
            String q = "SELECT count(*) FROM pay WHERE card = ? AND id >= ? AND amount > ? AND ts > ?";
            try (PreparedStatement ps = c.prepareStatement(q)) {
                Object[][] cases = {
                    {"untyped", "9600", "1.5", "2026-01-01T10:00:30+00:00", 2L},
                    {"untyped", "9601", "0", "2026-01-01 10:00:00.5", 1L},
                    {"untyped", " 9600 ", "3", "2026-01-01", 1L},
                };
                for (Object[] k : cases) {
                    for (int i = 0; i < 4; i++) {
                        ps.setObject(i + 1, k[i], java.sql.Types.OTHER);
                    }
                    assertEquals(k[4], single(ps), java.util.Arrays.toString(k));
                }
                String[][] bad = {
                    {"abc", "1", "2026-01-01", "22P02", "$2"},
                    {"100000000000000000000", "1", "2026-01-01", "22003", "$2"},
                    {"1", "one", "2026-01-01", "22P02", "$3"},
                    {"1", "1", "soon", "22007", "$4"},
                };
                for (String[] k : bad) {
                    ps.setString(1, "untyped");
                    for (int i = 0; i < 3; i++) {
                        ps.setObject(i + 2, k[i], java.sql.Types.OTHER);
                    }
                    PSQLException e = assertThrows(PSQLException.class, () -> single(ps), String.join(",", k));
                    assertEquals(k[3], e.getSQLState(), e.getMessage());
                    assertTrue(e.getMessage().contains(k[4]), e.getMessage());
                }
            }
        }
    }

    /**
     * What psycopg2 and hand-written SQL send: timestamps as {@code '…T…'::timestamp}, casts of literals in INSERT,
     * strings compared with numbers; bad values are data errors (22P02, 22007), never internal ones.
     */
    @Test
    void castLiteralsAsDriversWriteThem() throws SQLException {
        try (Connection c = node.connect("preferQueryMode=simple&"); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO pay (id, ts, card, amount, n) VALUES (9700, "
                    + "'2026-01-01T10:00:01.250000'::timestamp, 'casts', '2.5'::float8, CAST('3' AS integer))");
            s.executeUpdate("INSERT INTO pay (id, ts, card, amount) VALUES ('9701'::int8, "
                    + "CAST('2026-01-01 10:00:02+01' AS timestamp), 'casts', '1e1'::numeric)");
            try (ResultSet rs = s.executeQuery("SELECT total, cnt FROM per_card WHERE card = 'casts'")) {
                assertTrue(rs.next());
                assertEquals(12.5, rs.getDouble(1), 1e-9);
                assertEquals(2, rs.getLong(2));
            }
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM pay WHERE card = 'casts' "
                    + "AND ts > '2026-01-01T10:00:01.5'::timestamp AND id = '9701'")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getLong(1));
            }
            String[][] bad = {
                {"INSERT INTO pay (id, ts, card, amount) VALUES (9702, 'soon'::timestamp, 'casts', 1)", "22007"},
                {"INSERT INTO pay (id, ts, card, amount) VALUES ('x'::bigint, '2026-01-01', 'casts', 1)", "22P02"},
                {"SELECT count(*) FROM pay WHERE id = 'abc'", "22P02"},
                {"SELECT count(*) FROM pay WHERE ts > 'soon'::timestamp", "22007"},
            };
            for (String[] k : bad) {
                PSQLException e = assertThrows(PSQLException.class, () -> s.execute(k[0]), k[0]);
                assertEquals(k[1], e.getSQLState(), k[0] + ": " + e.getMessage());
            }
        }
    }

    /**
     * Savepoints as pgjdbc, psycopg 3 ({@code SAVEPOINT "_pg3_1"}) and SQLAlchemy use them: accepted inside a
     * transaction block with Postgres' checks; ROLLBACK TO undoes nothing (events apply when their INSERT
     * completes) and says so in a warning.
     */
    @Test
    void savepointsAreAcceptedAndUndoNothing() throws SQLException {
        try (Connection c = node.connect()) {
            try (Statement s = c.createStatement()) {
                PSQLException outside = assertThrows(PSQLException.class, () -> s.execute("SAVEPOINT a"));
                assertEquals("25P01", outside.getSQLState());
            }
            c.setAutoCommit(false);
            java.sql.Savepoint sp = c.setSavepoint();
            try (PreparedStatement ps = c.prepareStatement(INSERT_RETURNING)) {
                insert(ps, 9800, T0.plusMinutes(3), "savepoint", 1.0);
            }
            c.rollback(sp);
            assertTrue(c.getWarnings() != null && c.getWarnings().getMessage().contains("undoes nothing"),
                    String.valueOf(c.getWarnings()));
            try (Statement s = c.createStatement()) {
                s.execute("SAVEPOINT \"_pg3_1\"");
                s.execute("RELEASE \"_pg3_1\"");
                PSQLException gone = assertThrows(PSQLException.class, () -> s.execute("ROLLBACK TO _pg3_1"));
                assertEquals("3B001", gone.getSQLState());
            }
            PSQLException aborted = assertThrows(PSQLException.class, () -> c.releaseSavepoint(sp));
            assertEquals("25P02", aborted.getSQLState(), "an error fails the block until it ends, as in Postgres");
            c.commit(); // a failed block's COMMIT rolls back
            c.setAutoCommit(true);
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT cnt FROM per_card WHERE card = 'savepoint'")) {
                assertTrue(rs.next());
                assertEquals(1, rs.getLong(1), "the INSERT stays applied");
            }
        }
    }

    /** COPY (SELECT … FROM a stream or a metric) TO STDOUT through CopyManager, in CSV with a header and in text. */
    @Test
    void copyQueryToStdout() throws Exception {
        try (Connection c = node.connect()) {
            try (PreparedStatement ps = c.prepareStatement(INSERT_RETURNING)) {
                insert(ps, 9900, T0.plusMinutes(4), "copy-out", 1.5);
                insert(ps, 9901, T0.plusMinutes(5), "copy-out", 2.0);
            }
            var copy = c.unwrap(PGConnection.class).getCopyAPI();
            java.io.StringWriter csv = new java.io.StringWriter();
            copy.copyOut("COPY (SELECT id, card, amount FROM pay WHERE card = 'copy-out' ORDER BY id) "
                    + "TO STDOUT WITH (FORMAT csv, HEADER)", csv);
            assertEquals("id,card,amount\n9900,copy-out,1.5\n9901,copy-out,2\n", csv.toString());
            java.io.StringWriter text = new java.io.StringWriter();
            copy.copyOut("COPY (\n  SELECT card, total, cnt FROM per_card WHERE card = 'copy-out'\n) TO STDOUT", text);
            assertEquals("copy-out\t3.5\t2\n", text.toString());
            PSQLException bad = assertThrows(PSQLException.class,
                    () -> copy.copyOut("COPY (SELECT nope FROM pay) TO STDOUT", new java.io.StringWriter()));
            assertEquals("42703", bad.getSQLState());
        }
    }

    /** Text beyond Latin-1 in literals of the simple protocol, compared and returned intact (UTF-8 everywhere). */
    @Test
    void utf8LiteralsInTheSimpleProtocol() throws SQLException {
        try (Connection c = node.connect("preferQueryMode=simple&"); Statement s = c.createStatement()) {
            s.executeUpdate("INSERT INTO pay (id, ts, card, amount) VALUES (9950, '2026-01-01 10:06', 'héllo ✓ 日本', 1)");
            try (ResultSet rs = s.executeQuery("SELECT card, upper(card), char_length(card) FROM pay "
                    + "WHERE card = 'héllo ✓ 日本'")) {
                assertTrue(rs.next());
                assertEquals("héllo ✓ 日本", rs.getString(1));
                assertEquals("HÉLLO ✓ 日本", rs.getString(2));
                assertEquals(10, rs.getInt(3));
            }
        }
    }

    /** current_setting, format, CAST(… AS regclass) and keywords as aliases, as BI tools write them. */
    @Test
    void currentSettingAndFormat() throws SQLException {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute("SET application_name = 'bi-tool'");
            try (ResultSet rs = s.executeQuery("SELECT current_setting('server_version_num'), "
                    + "current_setting('application_name'), current_setting('no_such', true), "
                    + "format('%s.%I = %L', 'public', 'My Table', 'it''s'), format('%2$s-%1$s', 1, 'x')")) {
                assertTrue(rs.next());
                assertEquals("150000", rs.getString(1));
                assertEquals("bi-tool", rs.getString(2));
                assertEquals(null, rs.getString(3));
                assertEquals("public.\"My Table\" = 'it''s'", rs.getString(4));
                assertEquals("x-1", rs.getString(5));
            }
            try (ResultSet rs = s.executeQuery("SELECT c.relname, CAST('7' AS int8) + 1 FROM pg_class c "
                    + "WHERE c.oid = CAST('pay' AS regclass) AND c.oid = 'pay'::regclass")) {
                assertTrue(rs.next());
                assertEquals("pay", rs.getString(1));
                assertEquals(8, rs.getLong(2));
            }
            try (ResultSet rs = s.executeQuery("SELECT 1 AS one, 2 AS table, 3 AS Year, card AS value FROM pay "
                    + "WHERE card = 'pay-alias' OR true LIMIT 1")) {
                assertTrue(rs.next());
                var md = rs.getMetaData();
                assertEquals("one,table,year,value", md.getColumnLabel(1) + "," + md.getColumnLabel(2) + ","
                        + md.getColumnLabel(3) + "," + md.getColumnLabel(4));
            }
            try (ResultSet rs = s.executeQuery("SELECT relname, n_live_tup FROM pg_stat_user_tables "
                    + "WHERE relid = 'pay'::regclass")) {
                assertTrue(rs.next());
                assertEquals("pay", rs.getString(1));
            }
            try (ResultSet rs = s.executeQuery("SELECT pg_get_partkeydef('pay'::regclass), "
                    + "pg_get_viewdef('pay'::regclass), pg_size_pretty(pg_total_relation_size('pay'::regclass)), "
                    + "pg_size_pretty(CAST(1048576 AS bigint)), pg_size_pretty(CAST(123456789 AS bigint))")) {
                assertTrue(rs.next());
                assertEquals(null, rs.getString(1));
                assertEquals(null, rs.getString(2));
                assertEquals("0 bytes", rs.getString(3));
                assertEquals("1024 kB", rs.getString(4));
                assertEquals("118 MB", rs.getString(5)); // as Postgres prints them
            }
            PSQLException unknown = assertThrows(PSQLException.class,
                    () -> s.executeQuery("SELECT current_setting('no_such')"));
            assertEquals("42704", unknown.getSQLState());
            PSQLException few = assertThrows(PSQLException.class, () -> s.executeQuery("SELECT format('%s %s', 'a')"));
            assertEquals("22023", few.getSQLState());
        }
    }

    /**
     * pg_stat_activity lists the node's sessions with the pid clients were given; pg_cancel_backend(pid) from
     * another session ends a running SUBSCRIBE with 57014, as a CancelRequest does.
     */
    @Test
    void pgStatActivityAndCancelBackend() throws Exception {
        try (Connection waiter = node.connect("ApplicationName=waiter&"); Connection c = node.connect();
                Statement s = c.createStatement()) {
            int waiterPid = waiter.unwrap(PGConnection.class).getBackendPID();
            java.util.concurrent.CompletableFuture<String> subscribed = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> {
                        try (Statement w = waiter.createStatement()) {
                            w.execute("SUBSCRIBE per_card");
                            return "ended";
                        } catch (SQLException e) {
                            return e.getSQLState();
                        }
                    });
            try (ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
                assertTrue(rs.next());
                assertEquals(c.unwrap(PGConnection.class).getBackendPID(), rs.getInt(1));
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            String state = null;
            while (!"active".equals(state) && System.nanoTime() < deadline) {
                try (ResultSet rs = s.executeQuery("SELECT pid, usename, state, query FROM pg_stat_activity "
                        + "WHERE application_name = 'waiter'")) {
                    assertTrue(rs.next(), "the waiter is listed");
                    assertEquals(waiterPid, rs.getInt("pid"));
                    state = rs.getString("state");
                    if ("active".equals(state)) {
                        assertEquals("SUBSCRIBE per_card", rs.getString("query"));
                    }
                }
                Thread.sleep(50);
            }
            assertEquals("active", state);
            try (ResultSet rs = s.executeQuery("SELECT pg_cancel_backend(pid) FROM pg_stat_activity "
                    + "WHERE application_name = 'waiter'")) {
                assertTrue(rs.next());
                assertTrue(rs.getBoolean(1));
            }
            assertEquals("57014", subscribed.get(10, java.util.concurrent.TimeUnit.SECONDS));
            try (ResultSet rs = s.executeQuery("SELECT pg_cancel_backend(1)")) {
                assertTrue(rs.next());
                assertFalse(rs.getBoolean(1), "no such session");
            }
        }
    }

    /** now(), CURRENT_TIMESTAMP and LOCALTIMESTAMP as INSERT values: the server clock (UTC), as written. */
    @Test
    void nowAsAnInsertValue() throws SQLException {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE STREAM clocked (id BIGINT, ts TIMESTAMP, k VARCHAR) WITH (event_time = 'ts', "
                    + "event_id = 'id', partition_by = 'k', partitions = 1)");
            long before = System.currentTimeMillis();
            s.executeUpdate("INSERT INTO clocked VALUES (1, now(), 'a'), (2, CURRENT_TIMESTAMP, 'a'), "
                    + "(3, LOCALTIMESTAMP, 'a'), (4, now()::timestamp, 'a')");
            long after = System.currentTimeMillis();
            try (ResultSet rs = s.executeQuery("SELECT ts FROM clocked ORDER BY id")) {
                int n = 0;
                while (rs.next()) {
                    n++;
                    long t = rs.getObject(1, LocalDateTime.class).toInstant(java.time.ZoneOffset.UTC).toEpochMilli();
                    assertTrue(t >= before - 1 && t <= after + 1, "row " + n + " at " + t);
                }
                assertEquals(4, n);
            }
            s.executeUpdate("INSERT INTO clocked VALUES (5, now() - INTERVAL '1' SECOND, 'a' || 'b')");
            try (ResultSet rs = s.executeQuery("SELECT ts, k FROM clocked WHERE id = 5")) {
                assertTrue(rs.next());
                long t = rs.getObject(1, LocalDateTime.class).toInstant(java.time.ZoneOffset.UTC).toEpochMilli();
                assertTrue(t >= before - 1001 && t <= System.currentTimeMillis() - 999, "a second before now: " + t);
                assertEquals("ab", rs.getString(2));
            }
            PSQLException column = assertThrows(PSQLException.class, () -> s.executeUpdate(
                    "INSERT INTO clocked VALUES (6, ts, 'a')"));
            assertEquals("0A000", column.getSQLState(), "a column is no constant");
        }
    }

    /**
     * Named cursors as psycopg2 and psycopg 3 use them (DECLARE … CURSOR, FETCH FORWARD n FROM, CLOSE, pg_cursors),
     * through pgjdbc's extended protocol: FETCH is described with the cursor's columns.
     */
    @Test
    void namedCursors() throws SQLException {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            PSQLException outside = assertThrows(PSQLException.class,
                    () -> s.execute("DECLARE c1 CURSOR FOR SELECT 1"));
            assertEquals("25P01", outside.getSQLState());
            try (PreparedStatement ps = c.prepareStatement(INSERT_RETURNING)) {
                for (int i = 0; i < 4; i++) {
                    insert(ps, 9960 + i, T0.plusMinutes(7).plusSeconds(i), "cursor", 1.0);
                }
            }
            c.setAutoCommit(false);
            s.execute("DECLARE \"cur\" CURSOR WITHOUT HOLD FOR SELECT id, card FROM pay WHERE card = 'cursor' "
                    + "ORDER BY id");
            List<Long> ids = new java.util.ArrayList<>();
            for (String fetch : new String[] {"FETCH FORWARD 2 FROM \"cur\"", "FETCH NEXT FROM cur",
                "FETCH ALL IN cur", "FETCH 5 FROM cur"}) {
                try (ResultSet rs = s.executeQuery(fetch)) {
                    assertEquals("card", rs.getMetaData().getColumnLabel(2));
                    while (rs.next()) {
                        ids.add(rs.getLong(1));
                    }
                }
            }
            assertEquals(List.of(9960L, 9961L, 9962L, 9963L), ids);
            try (ResultSet rs = s.executeQuery("SELECT name, is_holdable FROM pg_cursors")) {
                assertTrue(rs.next());
                assertEquals("cur", rs.getString(1));
                assertFalse(rs.getBoolean(2));
            }
            // each error fails the block (25P02 after it, as in Postgres): a savepoint before it lets the block go on
            s.execute("SAVEPOINT before_error");
            PSQLException twice = assertThrows(PSQLException.class,
                    () -> s.execute("DECLARE cur CURSOR FOR SELECT 1"));
            assertEquals("42P03", twice.getSQLState());
            assertEquals("25P02", assertThrows(PSQLException.class, () -> s.execute("CLOSE cur")).getSQLState());
            s.execute("ROLLBACK TO SAVEPOINT before_error");
            s.execute("CLOSE cur");
            PSQLException gone = assertThrows(PSQLException.class, () -> s.executeQuery("FETCH 1 FROM cur"));
            assertEquals("34000", gone.getSQLState());
            s.execute("ROLLBACK TO SAVEPOINT before_error");
            // a scrollable cursor, as Postgres moves it: FETCH PRIOR / ABSOLUTE / RELATIVE / BACKWARD, MOVE
            s.execute("DECLARE back SCROLL CURSOR FOR SELECT id FROM pay WHERE card = 'cursor' ORDER BY id");
            List<String> moves = new java.util.ArrayList<>();
            for (String fetch : new String[] {"FETCH 2 FROM back", "FETCH PRIOR FROM back", "FETCH LAST FROM back",
                "FETCH BACKWARD 2 FROM back", "FETCH ABSOLUTE -4 FROM back", "FETCH RELATIVE 2 FROM back",
                "FETCH -1 FROM back", "FETCH FORWARD ALL FROM back", "FETCH NEXT FROM back", "FETCH FIRST FROM back",
                "MOVE LAST IN back", "FETCH BACKWARD ALL FROM back"}) {
                if (fetch.startsWith("MOVE")) {
                    assertEquals(1, s.executeUpdate(fetch), fetch);
                    moves.add("moved");
                    continue;
                }
                List<Long> got = new java.util.ArrayList<>();
                try (ResultSet rs = s.executeQuery(fetch)) {
                    while (rs.next()) {
                        got.add(rs.getLong(1) - 9959);
                    }
                }
                moves.add(got.toString());
            }
            assertEquals(List.of("[1, 2]", "[1]", "[4]", "[3, 2]", "[1]", "[3]", "[2]", "[3, 4]", "[]", "[1]",
                    "moved", "[3, 2, 1]"), moves, "rows 1..4 of the cursor, as Postgres fetches them");
            s.execute("DECLARE fwd NO SCROLL CURSOR FOR SELECT 1");
            s.execute("SAVEPOINT before_scroll");
            assertEquals("55000", assertThrows(PSQLException.class, () -> s.executeQuery("FETCH PRIOR FROM fwd"))
                    .getSQLState(), "NO SCROLL: forward only");
            s.execute("ROLLBACK TO SAVEPOINT before_scroll");
            s.execute("DECLARE kept CURSOR WITH HOLD FOR SELECT 1 AS one");
            c.commit();
            try (ResultSet rs = s.executeQuery("FETCH 1 FROM kept")) {
                assertTrue(rs.next(), "a cursor WITH HOLD outlives its block");
                assertEquals(1, rs.getInt("one"));
            }
            s.execute("CLOSE ALL");
            c.setAutoCommit(true);
        }
    }

    /**
     * A timestamp keeps its microseconds in every expression, as in Postgres: read back as it is, plus an interval,
     * the largest of a group, through columns renamed in FROM, compared with a literal and a parameter in WHERE.
     */
    @Test
    void timestampsReadBackToTheMicrosecond() throws SQLException {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE STREAM micro (id BIGINT, ts TIMESTAMP, k VARCHAR) WITH (event_time = 'ts', "
                    + "event_id = 'id', partition_by = 'k', partitions = 2)");
            s.executeUpdate("INSERT INTO micro VALUES (1, '2026-01-01 10:00:00.123456', 'a'), "
                    + "(2, '2026-01-01 10:00:00.123789', 'b'), (3, '2026-01-01 10:00:00.500001', 'a')");
            List<String> shown = new java.util.ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT id, ts, ts + INTERVAL '1' SECOND AS later FROM micro "
                    + "ORDER BY id")) {
                while (rs.next()) {
                    shown.add(rs.getLong(1) + " " + rs.getObject(2, LocalDateTime.class) + " "
                            + rs.getObject(3, LocalDateTime.class));
                }
            }
            assertEquals(List.of("1 2026-01-01T10:00:00.123456 2026-01-01T10:00:01.123456",
                    "2 2026-01-01T10:00:00.123789 2026-01-01T10:00:01.123789",
                    "3 2026-01-01T10:00:00.500001 2026-01-01T10:00:01.500001"), shown);
            try (ResultSet rs = s.executeQuery("SELECT m.ts FROM micro AS m(i, ts, k) WHERE i = 3")) {
                assertTrue(rs.next());
                assertEquals(LocalDateTime.of(2026, 1, 1, 10, 0, 0, 500_001_000), rs.getObject(1, LocalDateTime.class),
                        "columns renamed in FROM");
            }
            try (ResultSet rs = s.executeQuery("SELECT max(ts), min(ts)::text FROM micro WHERE k = 'a'")) {
                assertTrue(rs.next());
                assertEquals(LocalDateTime.of(2026, 1, 1, 10, 0, 0, 500_001_000), rs.getObject(1, LocalDateTime.class));
                assertEquals("2026-01-01 10:00:00.123456", rs.getString(2));
            }
            try (ResultSet rs = s.executeQuery("SELECT id FROM micro WHERE ts > TIMESTAMP '2026-01-01 10:00:00.123456' "
                    + "AND ts <= '2026-01-01 10:00:00.500001' ORDER BY id")) {
                assertTrue(rs.next());
                assertEquals(2, rs.getLong(1), "compared to the microsecond");
                assertTrue(rs.next());
                assertEquals(3, rs.getLong(1));
                assertFalse(rs.next());
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM micro WHERE ts = ?")) {
                ps.setObject(1, LocalDateTime.of(2026, 1, 1, 10, 0, 0, 123_789_000));
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(1, rs.getLong(1), "a parameter, to the microsecond");
                }
            }
        }
    }

    /**
     * Words Postgres takes as names and Calcite keeps as keywords (time, values, range, rows, current) name a stream's
     * columns, a metric's aggregation and group key, unquoted, through prepared statements; an error's position is in
     * the client's text.
     */
    @Test
    void postgresNamesThatAreCalciteKeywords() throws SQLException {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE STREAM kw (id BIGINT, time TIMESTAMP, values DOUBLE, range VARCHAR, current BOOLEAN) "
                    + "WITH (event_time = 'time', event_id = 'id', partition_by = 'range', partitions = 2)");
            s.execute("CREATE METRIC kw_sums AS SELECT SUM(values) AS total, COUNT(*) AS rows FROM kw WHERE current "
                    + "GROUP BY range OVER SLIDING 1 HOUR");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO kw (id, time, values, range, current) "
                    + "VALUES (?, ?, ?, ?, ?) RETURNING *")) {
                for (int i = 1; i <= 3; i++) {
                    ps.setLong(1, i);
                    ps.setObject(2, T0.plusSeconds(i));
                    ps.setDouble(3, i * 10);
                    ps.setString(4, "r");
                    ps.setBoolean(5, i != 2);
                    try (ResultSet rs = ps.executeQuery()) {
                        assertTrue(rs.next());
                        assertEquals(i < 3 ? 10 : 40, rs.getDouble("kw_sums_total"), "event " + i + " (2 is filtered out)");
                    }
                }
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT time, values, k.range FROM kw AS k "
                    + "WHERE time > ? AND values BETWEEN ? AND 100 ORDER BY time DESC")) {
                ps.setObject(1, T0);
                ps.setInt(2, 15);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(T0.plusSeconds(3), rs.getObject("time", LocalDateTime.class));
                    assertEquals(30, rs.getDouble("values"));
                    assertEquals("r", rs.getString("range"));
                    assertTrue(rs.next());
                    assertFalse(rs.next());
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT range, rows, total FROM kw_sums")) {
                assertTrue(rs.next());
                assertEquals(2, rs.getLong("rows"));
                assertEquals(40, rs.getDouble("total"));
            }
            SQLException e = assertThrows(SQLException.class,
                    () -> s.executeQuery("SELECT time, values FROM kw WHERE values = = 1"));
            assertEquals("42601", e.getSQLState());
            assertEquals(42, ((PSQLException) e).getServerErrorMessage().getPosition());
        }
    }

    private static long single(PreparedStatement ps) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next());
            return rs.getLong(1);
        }
    }
}
