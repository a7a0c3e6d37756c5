package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SUBSCRIBE against a real node: pgjdbc in its default mode streaming with setFetchSize(1) (autocommit off, so
 * portals stay suspended between fetches) while another connection INSERTs, rows equal to INSERT … RETURNING;
 * Statement.cancel() ending it with 57014; psql running {@code COPY (SUBSCRIBE …) TO STDOUT} under a timeout, and
 * killed outright; {@code COPY (SHOW STREAMS) TO STDOUT}. Every subscription is released at the end.
 */
@Tag("integration")
@Timeout(300)
@SecondNodeLane
class SubscribeIT {
    @TempDir
    static Path dir;
    private static TestNode node;
    private static final LocalDateTime T0 = LocalDateTime.of(2026, 3, 1, 12, 0);

    @BeforeAll
    static void start() throws SQLException {
        node = new TestNode(dir);
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE STREAM card (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE) "
                    + "WITH (event_time = 'ts', event_id = 'id', partition_by = 'card', partitions = 2, lateness = '1 day')");
            s.execute("CREATE METRIC card_5m AS SELECT SUM(amount) AS total, COUNT(*) AS cnt FROM card "
                    + "GROUP BY card OVER SLIDING INTERVAL '5' MINUTE");
        }
    }

    @AfterAll
    static void stop() {
        node.close();
    }

    private static void awaitSubscriptions(IntPredicate wanted) throws InterruptedException {
        node.awaitSubscriptions(wanted);
    }

    /** INSERT … RETURNING *: {id, total, cnt}. */
    private static Object[] insert(Connection c, long id, int second, String card, double amount) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO card VALUES (?, ?, ?, ?) RETURNING *")) {
            ps.setLong(1, id);
            ps.setObject(2, T0.plusSeconds(second));
            ps.setString(3, card);
            ps.setDouble(4, amount);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return new Object[] {rs.getLong("id"), rs.getDouble("card_5m_total"), rs.getLong("card_5m_cnt")};
            }
        }
    }

    @Test
    void pgjdbcFetchSizeStreamsRowsEqualToReturning() throws Exception {
        try (Connection reader = node.connect(); Connection writer = node.connect()) {
            reader.setAutoCommit(false);
            Statement subscribe = reader.createStatement();
            subscribe.setFetchSize(1);
            List<Object[]> seen = new ArrayList<>();
            CompletableFuture<Void> ended = CompletableFuture.runAsync(() -> {
                try (ResultSet rs = subscribe.executeQuery("SUBSCRIBE card_5m")) {
                    assertEquals("id", rs.getMetaData().getColumnName(1));
                    assertEquals("ts", rs.getMetaData().getColumnName(2));
                    assertEquals("card", rs.getMetaData().getColumnName(3));
                    assertEquals("card_5m_total", rs.getMetaData().getColumnName(4));
                    assertEquals("card_5m_cnt", rs.getMetaData().getColumnName(5));
                    while (seen.size() < 3 && rs.next()) {
                        synchronized (seen) {
                            seen.add(new Object[] {rs.getLong(1), rs.getTimestamp(2), rs.getString(3),
                                rs.getDouble(4), rs.getLong(5)});
                        }
                    }
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitSubscriptions(n -> n == 1);
            List<Object[]> returned = new ArrayList<>();
            returned.add(insert(writer, 1, 0, "a", 10));
            returned.add(insert(writer, 2, 1, "b", 5));
            returned.add(insert(writer, 3, 2, "a", 2.5));
            ended.get(30, TimeUnit.SECONDS);
            assertEquals(3, seen.size());
            String[] cards = {"a", "b", "a"};
            for (int i = 0; i < 3; i++) {
                Object[] row = seen.get(i);
                assertEquals(returned.get(i)[0], row[0]);
                assertEquals(Timestamp.valueOf(T0.plusSeconds(i)), row[1]);
                assertEquals(cards[i], row[2]);
                assertEquals(returned.get(i)[1], row[3]);
                assertEquals(returned.get(i)[2], row[4]);
            }
            assertEquals(12.5, (Double) seen.get(2)[3]);
            // pgjdbc sends the closed cursor's Close Portal with its next message; COMMIT ends every portal too
            reader.commit();
            awaitSubscriptions(n -> n == 0);
        }
    }

    /** A reader that falls more than 10,000 events behind is ended with 54000 instead of growing the node. */
    @Test
    void aSubscriberThatFallsBehindEndsWith54000() throws Exception {
        awaitSubscriptions(n -> n == 0);
        try (Connection reader = node.connect(); Connection writer = node.connect()) {
            reader.setAutoCommit(false);
            Statement subscribe = reader.createStatement();
            subscribe.setFetchSize(1000);
            CompletableFuture<ResultSet> opened = CompletableFuture.supplyAsync(() -> {
                try {
                    return subscribe.executeQuery("SUBSCRIBE card_5m");
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            awaitSubscriptions(n -> n == 1);
            insert(writer, 5000, 200, "f", 1);
            ResultSet rs = opened.get(30, TimeUnit.SECONDS); // a fetch returns what waits: here one row
            assertTrue(rs.next());
            assertEquals(5000, rs.getLong(1));
            StringBuilder data = new StringBuilder();
            int flood = 10_050;
            for (int i = 1; i <= flood; i++) {
                data.append(5000 + i).append('\t').append(T0.plusSeconds(200).plusNanos(i * 1000L).toString()
                        .replace('T', ' ')).append("\tf\t1\n");
            }
            long copied = writer.unwrap(org.postgresql.PGConnection.class).getCopyAPI()
                    .copyIn("COPY card FROM STDIN", new java.io.StringReader(data.toString()));
            assertEquals(flood, copied);
            int[] rows = {0};
            SQLException e = assertThrows(SQLException.class, () -> {
                while (rs.next()) {
                    rows[0]++;
                }
            });
            assertEquals("54000", e.getSQLState(), e.getMessage());
            assertTrue(e.getMessage().contains("subscriber fell behind"), e.getMessage());
            assertTrue(rows[0] <= 10_000, rows[0] + " rows before the error");
            awaitSubscriptions(n -> n == 0);
            reader.rollback();
        }
    }

    /** pgjdbc cancels a statement while it executes: here while SUBSCRIBE waits for its first event. */
    @Test
    void pgjdbcStatementCancelEndsSubscribeWith57014() throws Exception {
        for (boolean cursor : new boolean[] {true, false}) {
            try (Connection reader = node.connect()) {
                reader.setAutoCommit(!cursor);
                Statement subscribe = reader.createStatement();
                subscribe.setFetchSize(cursor ? 1 : 0);
                CompletableFuture<SQLException> ended = CompletableFuture.supplyAsync(() -> {
                    try (ResultSet rs = subscribe.executeQuery("SUBSCRIBE card_5m WHERE card = 'nobody'")) {
                        return null;
                    } catch (SQLException e) {
                        return e;
                    }
                });
                awaitSubscriptions(n -> n == 1);
                Thread.sleep(200); // let pgjdbc block in reading the result
                subscribe.cancel();
                SQLException error = ended.get(30, TimeUnit.SECONDS);
                assertNotNull(error, "canceled");
                assertEquals("57014", error.getSQLState());
                assertTrue(error.getMessage().contains("canceling statement due to user request"), error.getMessage());
                awaitSubscriptions(n -> n == 0);
                if (cursor) {
                    reader.rollback();
                }
                try (Statement s = reader.createStatement(); ResultSet rs = s.executeQuery("SHOW STREAMS")) {
                    assertTrue(rs.next(), "the connection is usable after the cancel");
                }
            }
        }
    }

    @Test
    void subscribeErrors() throws Exception {
        try (Connection c = node.connect(); Statement s = c.createStatement()) {
            SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SUBSCRIBE nosuch"));
            assertEquals("42P01", e.getSQLState());
            e = assertThrows(SQLException.class, () -> s.executeQuery("SUBSCRIBE card_5m WHERE nosuch > 1"));
            assertEquals("42703", e.getSQLState(), e.getMessage());
            e = assertThrows(SQLException.class, () -> s.execute("COPY card TO STDOUT"));
            assertEquals("0A000", e.getSQLState(), e.getMessage());
            e = assertThrows(SQLException.class, () -> s.execute(
                    "COPY (CREATE STREAM other (ts TIMESTAMP, k VARCHAR) WITH (event_time = 'ts', partition_by = 'k')) TO STDOUT"));
            assertEquals("0A000", e.getSQLState(), e.getMessage());
            try (ResultSet rs = s.executeQuery("SHOW STREAMS")) {
                assertTrue(rs.next());
                assertEquals("card", rs.getString("name"));
                assertFalse(rs.next(), "the refused COPY created nothing");
            }
        }
        assertEquals(0, node.subscriptions());
    }

    private static Process psql(Path out, String sql, String... timeout) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(timeout));
        cmd.addAll(List.of("psql", "-h", "127.0.0.1", "-p", String.valueOf(node.port()), "-U", "coilgun", "-d",
                "coilgun", "-X", "-c", sql));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile())
                .redirectError(Path.of(out + ".err").toFile());
        pb.environment().put("PGCONNECT_TIMEOUT", "10");
        return pb.start();
    }

    @Test
    void psqlCopySubscribeStoppedByTimeoutAndByKill() throws Exception {
        Path all = dir.resolve("all.out");
        Path onlyC = dir.resolve("c.out");
        Path killed = dir.resolve("killed.out");
        awaitSubscriptions(n -> n == 0);
        // SIGINT at the timeout: psql sends a CancelRequest, the COPY ends with 57014, psql flushes what it got
        Process a = psql(all, "COPY (SUBSCRIBE card_5m) TO STDOUT", "timeout", "-s", "INT", "12");
        Process c = psql(onlyC, "COPY (SUBSCRIBE TO card_5m WHERE card = 'c' AND card_5m_cnt >= 1) TO STDOUT "
                + "WITH (FORMAT csv, HEADER)", "timeout", "-s", "INT", "12");
        Process k = psql(killed, "COPY (SUBSCRIBE card) TO STDOUT");
        awaitSubscriptions(n -> n == 3);
        Object[] r1;
        Object[] r2;
        try (Connection writer = node.connect()) {
            r1 = insert(writer, 101, 100, "c", 7);
            r2 = insert(writer, 102, 101, "d", 1.5);
        }
        k.destroyForcibly(); // SIGKILL: the connection just goes away
        assertTrue(k.waitFor(30, TimeUnit.SECONDS));
        awaitSubscriptions(n -> n == 2);
        assertTrue(a.waitFor(60, TimeUnit.SECONDS), "timeout stopped psql");
        assertTrue(c.waitFor(60, TimeUnit.SECONDS), "timeout stopped psql");
        awaitSubscriptions(n -> n == 0);

        List<String> lines = Files.readAllLines(all, StandardCharsets.UTF_8);
        assertEquals(List.of("101\t2026-03-01 12:01:40\tc\t" + fmt((Double) r1[1]) + "\t" + r1[2],
                "102\t2026-03-01 12:01:41\td\t" + fmt((Double) r2[1]) + "\t" + r2[2]), lines);
        String err = Files.readString(Path.of(all + ".err"));
        assertTrue(err.contains("canceling statement due to user request"), err);
        assertEquals(List.of("id,ts,card,card_5m_total,card_5m_cnt", "101,2026-03-01 12:01:40,c,7,1"),
                Files.readAllLines(onlyC, StandardCharsets.UTF_8));

        // the node is fine: COPY (SHOW STREAMS) TO STDOUT, text and csv with a header
        List<String> show = PsqlReadmeIT.psql(node.port(), "-c", "COPY (SHOW STREAMS) TO STDOUT");
        assertEquals(1, show.size(), show.toString());
        assertTrue(show.get(0).startsWith("card\tid BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE\tts\tid\tcard\t2\t"), show.get(0));
        List<String> csv = PsqlReadmeIT.psql(node.port(), "-c",
                "COPY (SHOW STREAMS) TO STDOUT WITH (FORMAT csv, HEADER true)");
        assertEquals("name,columns,event_time,event_id,partition_by,partitions,lateness,late_events,dedup_horizon,"
                + "schema_version,replicas,source",
                csv.get(0));
        assertTrue(csv.get(1).startsWith("card,\"id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE\",ts,id,card,2,"), csv.get(1));
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? String.valueOf((long) d) : String.valueOf(d);
    }
}
