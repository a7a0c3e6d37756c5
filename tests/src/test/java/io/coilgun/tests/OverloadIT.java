package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node offered more than its bound of events in flight ({@code --max-inflight-events}, 40 here) pushes back:
 * 32 clients sending multi-row INSERTs at once wait for room (first come, first served) instead of piling events
 * into the producer and the reply tables; the node never holds more than its bound, a statement bigger than the whole
 * bound still goes through, a client that finds no room in time gets 53000 and retries, and every event is counted
 * once (the oracle: every card's count).
 */
@Tag("integration")
@Timeout(300)
@SecondNodeLane
class OverloadIT {
    static final int BOUND = 40;
    static final int CLIENTS = 32;
    static final int STATEMENTS = 25;
    static final int ROWS = 8;

    @TempDir
    Path dir;

    @Test
    void anOverloadedNodeMakesStatementsWaitAndCountsEveryEventOnce() throws Exception {
        try (TestNode node = new TestNode(dir, null, c -> c.withMaxInflightEvents(BOUND));
                Connection c = node.connect(); Statement s = c.createStatement()) {
            s.execute("CREATE STREAM pay (id BIGINT, ts TIMESTAMP, card VARCHAR, amount DOUBLE) WITH (event_id = 'id', "
                    + "partition_by = 'card', partitions = 4, lateness = '1 hour')");
            s.execute("CREATE METRIC m AS SELECT COUNT(*) AS n FROM pay GROUP BY card OVER SLIDING 30 DAYS");
            Map<String, LongAdder> accepted = new ConcurrentHashMap<>();
            AtomicLong ids = new AtomicLong();
            AtomicInteger refused = new AtomicInteger();
            AtomicReference<Throwable> failed = new AtomicReference<>();
            AtomicInteger peak = new AtomicInteger();
            List<Thread> clients = new ArrayList<>();
            for (int k = 0; k < CLIENTS; k++) {
                int client = k;
                clients.add(new Thread(() -> {
                    try (Connection conn = node.connect()) {
                        for (int st = 0; st < STATEMENTS; st++) {
                            int rows = client == 0 && st == 0 ? BOUND * 3 : ROWS; // one bigger than the bound
                            insert(conn, rows, ids, accepted, refused);
                        }
                    } catch (Throwable t) {
                        failed.compareAndSet(null, t);
                    }
                }, "overload-client-" + k));
            }
            Thread sampler = new Thread(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    try {
                        peak.accumulateAndGet((int) metric(node, "coilgun_ingest_inflight_events"), Math::max);
                        Thread.sleep(20);
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        // a scrape that failed: the next one
                    }
                }
            });
            sampler.start();
            clients.forEach(Thread::start);
            for (Thread t : clients) {
                t.join();
            }
            sampler.interrupt();
            sampler.join();
            assertEquals(null, failed.get(), "every client's statements answered (53000 retried)");

            double waited = metric(node, "coilgun_ingest_waited_total");
            assertTrue(waited > 0, "statements waited for room");
            assertTrue(peak.get() <= BOUND, "events in flight stayed within the bound: " + peak.get());
            assertEquals(refused.get(), (int) metric(node, "coilgun_ingest_refused_total"),
                    "the 53000 the clients saw are the node's refusals");

            Map<String, Long> counted = new HashMap<>();
            try (ResultSet rs = s.executeQuery("SELECT card, n FROM m")) {
                while (rs.next()) {
                    counted.put(rs.getString(1), rs.getLong(2));
                }
            }
            Map<String, Long> expected = new HashMap<>();
            accepted.forEach((card, n) -> expected.put(card, n.sum()));
            assertEquals(expected, counted, "every accepted event counted once");
            assertEquals((long) CLIENTS * STATEMENTS * ROWS + BOUND * 3 - ROWS,
                    expected.values().stream().mapToLong(Long::longValue).sum(), "every event accepted");
            System.out.printf("OverloadIT: %d statements waited for room, %d refused (53000, retried), at most %d "
                    + "events in flight of %d%n", (long) waited, refused.get(), peak.get(), BOUND);
        }
    }

    /** One multi-row INSERT of new events, sent again (same ids) after a 53000 until it is answered. */
    private static void insert(Connection conn, int rows, AtomicLong ids, Map<String, LongAdder> accepted,
            AtomicInteger refused) throws Exception {
        StringBuilder sql = new StringBuilder("INSERT INTO pay VALUES ");
        for (int i = 0; i < rows; i++) {
            sql.append(i == 0 ? "" : ", ").append("(?, ?, ?, ?)");
        }
        List<String> cards = new ArrayList<>();
        try (PreparedStatement ps = conn.prepareStatement(sql.toString())) {
            for (int i = 0; i < rows; i++) {
                long id = ids.incrementAndGet();
                String card = "c" + (id % 50);
                cards.add(card);
                ps.setLong(4 * i + 1, id);
                ps.setTimestamp(4 * i + 2, new Timestamp(1_767_225_600_000L + id));
                ps.setString(4 * i + 3, card);
                ps.setDouble(4 * i + 4, id % 100);
            }
            while (true) {
                try {
                    assertEquals(rows, ps.executeUpdate());
                    break;
                } catch (SQLException e) {
                    if (!"53000".equals(e.getSQLState())) {
                        throw e;
                    }
                    refused.incrementAndGet();
                }
            }
        }
        for (String card : cards) {
            accepted.computeIfAbsent(card, k -> new LongAdder()).increment();
        }
    }

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** A value of the node's /metrics (the first series of that name). */
    static double metric(TestNode node, String name) throws Exception {
        String text = HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.httpPort() + "/metrics"))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "(\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(text);
        assertTrue(m.find(), name + " in /metrics");
        return Double.parseDouble(m.group(2));
    }
}
