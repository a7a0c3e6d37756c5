package io.coilgun.pgwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Streamed results (SUBSCRIBE, COPY (query) TO STDOUT) on a raw socket: rows as they come in the simple protocol,
 * portal row limits that suspend and resume, COPY out with Postgres' escaping, cancel, release on disconnect,
 * a bounded source that overflows, and a slow reader that holds the source back.
 */
@Timeout(60)
class StreamedResultTest {
    private static final FakeSessionFactory SESSIONS = new FakeSessionFactory();
    private static PgServer server;

    @BeforeAll
    static void start() throws IOException {
        server = new PgServer("127.0.0.1", 0, SESSIONS, 4096);
        server.start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** A started connection; {@code key} receives the BackendKeyData body (process id, secret). */
    private static RawPgClient connect(byte[][] key) throws IOException {
        RawPgClient client = new RawPgClient(server.port());
        client.send(RawPgClient.startup("user", "x", "database", "db"));
        RawPgClient.Message message;
        while ((message = client.read()).type() != 'Z') {
            if (message.type() == 'K' && key != null) {
                key[0] = message.body();
            }
        }
        return client;
    }

    private static void cancel(byte[] key) throws IOException {
        try (RawPgClient canceller = new RawPgClient(server.port())) {
            ByteBuffer request = ByteBuffer.allocate(16).putInt(16).putInt(80877102).put(key);
            canceller.send(request.array());
            assertTrue(canceller.closedByServer());
        }
    }

    private static void await(LongSupplier value, long wanted) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (value.getAsLong() != wanted) {
            assertTrue(System.nanoTime() < deadline, "value now " + value.getAsLong() + ", waiting for " + wanted);
            Thread.sleep(10);
        }
    }

    private static String text(RawPgClient.Message message) {
        return new String(message.body(), StandardCharsets.UTF_8);
    }

    /** The first value of a DataRow, as text. */
    private static String firstValue(RawPgClient.Message row) {
        ByteBuffer b = ByteBuffer.wrap(row.body());
        b.getShort();
        byte[] v = new byte[b.getInt()];
        b.get(v);
        return new String(v, StandardCharsets.UTF_8);
    }

    @Test
    void simpleQuerySendsRowsAsTheyComeUntilCanceled() throws Exception {
        byte[][] key = new byte[1][];
        try (RawPgClient client = connect(key)) {
            long before = SESSIONS.openFeeds();
            client.send(RawPgClient.query("SUBSCRIBE"));
            assertEquals('T', client.read().type());
            await(SESSIONS::openFeeds, before + 1);
            SESSIONS.push(1);
            RawPgClient.Message row = client.read();
            assertEquals('D', row.type());
            assertEquals("1", firstValue(row));
            SESSIONS.push(2);
            assertEquals("2", firstValue(client.read()));
            cancel(key[0]);
            RawPgClient.Message error = client.read();
            assertEquals('E', error.type());
            assertEquals("57014", error.fields().get('C'));
            assertEquals("canceling statement due to user request", error.fields().get('M'));
            assertEquals('Z', client.read().type());
            await(SESSIONS::openFeeds, before);
            client.send(RawPgClient.query("SELECT 1"));
            assertEquals("TDCZ", client.readUntilReady(null));
        }
    }

    @Test
    void rowLimitsSuspendThePortalAndTheNextExecuteGoesOn() throws Exception {
        try (RawPgClient client = connect(null)) {
            long before = SESSIONS.openFeeds();
            client.send(RawPgClient.query("BEGIN"));
            assertEquals("CZ", client.readUntilReady(null));
            client.send(RawPgClient.parse("", "SUBSCRIBE"), RawPgClient.bind("p1", ""),
                    RawPgClient.describe('P', "p1"), RawPgClient.execute("p1", 2), RawPgClient.sync());
            await(SESSIONS::openFeeds, before + 1);
            assertEquals('1', client.read().type());
            assertEquals('2', client.read().type());
            assertEquals('T', client.read().type()); // the Execute waits for its first row
            SESSIONS.push(1);
            assertEquals("1", firstValue(client.read()));
            assertEquals("sZ", client.readUntilReady(null)); // no more rows waiting: suspended early
            SESSIONS.push(2);
            SESSIONS.push(3);
            SESSIONS.push(4);
            client.send(RawPgClient.execute("p1", 2), RawPgClient.sync());
            assertEquals("2", firstValue(client.read()));
            assertEquals("3", firstValue(client.read()));
            assertEquals("sZ", client.readUntilReady(null)); // the limit
            client.send(RawPgClient.execute("p1", 2), RawPgClient.sync());
            assertEquals("4", firstValue(client.read()));
            assertEquals("sZ", client.readUntilReady(null));
            // Close the portal: its subscription is released
            client.send(RawPgClient.typed('C', "Pp1\0".getBytes(StandardCharsets.UTF_8)), RawPgClient.sync());
            assertEquals("3Z", client.readUntilReady(null));
            await(SESSIONS::openFeeds, before);

            // A reader that falls behind: the bounded source overflows and the next Execute fails with 54000
            client.send(RawPgClient.parse("", "SUBSCRIBE"), RawPgClient.bind("p2", ""),
                    RawPgClient.execute("p2", 1), RawPgClient.sync());
            await(SESSIONS::openFeeds, before + 1);
            for (int i = 0; i < 150; i++) {
                SESSIONS.push(i);
            }
            assertEquals("12DsZ", client.readUntilReady(null));
            client.send(RawPgClient.execute("p2", 0), RawPgClient.sync());
            StringBuilder types = new StringBuilder();
            RawPgClient.Message m;
            while ((m = client.read()).type() == 'D') {
                types.append('D');
            }
            // what the source held before it overflowed (100, less the one row sent if it came first)
            assertTrue(types.length() == 99 || types.length() == 100, types.length() + " rows");
            assertEquals('E', m.type());
            assertEquals("54000", m.fields().get('C'));
            assertEquals('Z', client.read().type());
            await(SESSIONS::openFeeds, before);
        }
    }

    @Test
    void copyOutEscapesAsPostgres() throws Exception {
        try (RawPgClient client = connect(null)) {
            client.send(RawPgClient.query("COPY (SPECIAL) TO STDOUT"));
            RawPgClient.Message head = client.read();
            assertEquals('H', head.type());
            assertEquals(List.of(0, 0, 2, 0, 0, 0, 0), toList(head.body()));
            List<String> data = new ArrayList<>();
            RawPgClient.Message m;
            while ((m = client.read()).type() == 'd') {
                data.add(text(m));
            }
            assertEquals(List.of("tab\\there\t1\n", "new\\nline\\\\back,\"q\"\t\\N\n", "\t2\n"), data);
            assertEquals('c', m.type());
            RawPgClient.Message done = client.read();
            assertEquals("COPY 3", done.text());
            assertEquals('Z', client.read().type());

            client.send(RawPgClient.query("COPY (SPECIAL) TO STDOUT CSV HEADER"));
            assertEquals('H', client.read().type());
            data.clear();
            while ((m = client.read()).type() == 'd') {
                data.add(text(m));
            }
            assertEquals(List.of("a,b\n", "tab\there,1\n", "\"new\nline\\back,\"\"q\"\"\",\n", "\"\",2\n"), data);
            assertEquals("COPY 3", client.read().text());
            assertEquals('Z', client.read().type());
        }
    }

    private static List<Integer> toList(byte[] bytes) {
        List<Integer> list = new ArrayList<>();
        for (byte b : bytes) {
            list.add((int) b);
        }
        return list;
    }

    @Test
    void copyOutOfASubscriptionIsReleasedWhenTheClientGoesAway() throws Exception {
        int closedBefore = SESSIONS.closed.get();
        long before = SESSIONS.openFeeds();
        RawPgClient client = connect(null);
        client.send(RawPgClient.query("COPY (SUBSCRIBE) TO STDOUT"));
        assertEquals('H', client.read().type());
        await(SESSIONS::openFeeds, before + 1);
        SESSIONS.push(7);
        RawPgClient.Message data = client.read();
        assertEquals('d', data.type());
        assertEquals("7\trow 7\n", text(data));
        client.close(); // no row flows now: the server notices the disconnect all the same
        await(SESSIONS::openFeeds, before);
        await(() -> SESSIONS.closed.get(), closedBefore + 1);
    }

    @Test
    void terminateDuringASubscriptionEndsIt() throws Exception {
        long before = SESSIONS.openFeeds();
        try (RawPgClient client = connect(null)) {
            client.send(RawPgClient.query("SUBSCRIBE"));
            assertEquals('T', client.read().type());
            await(SESSIONS::openFeeds, before + 1);
            client.send(RawPgClient.typed('X', new byte[0]));
            assertTrue(client.closedByServer());
            await(SESSIONS::openFeeds, before);
        }
    }

    @Test
    void aDisconnectWhileAResumedExecuteWaitsReleasesTheSubscription() throws Exception {
        long before = SESSIONS.openFeeds();
        RawPgClient client = connect(null);
        client.send(RawPgClient.query("BEGIN"));
        assertEquals("CZ", client.readUntilReady(null));
        client.send(RawPgClient.parse("", "SUBSCRIBE"), RawPgClient.bind("p", ""), RawPgClient.execute("p", 1),
                RawPgClient.sync());
        await(SESSIONS::openFeeds, before + 1);
        SESSIONS.push(1);
        assertEquals("12DsZ", client.readUntilReady(null));
        client.send(RawPgClient.execute("p", 1), RawPgClient.sync());
        Thread.sleep(100); // the Execute waits for a row
        client.close();
        await(SESSIONS::openFeeds, before);
    }

    @Test
    void aSlowReaderHoldsTheSourceBack() throws Exception {
        long total = 200_000; // rows of ~220 bytes: 44 MB if the server pulled them all
        try (RawPgClient client = connect(null)) {
            long pulledBefore = SESSIONS.pulled.get();
            client.send(RawPgClient.query("STREAM " + total));
            // The socket buffers fill up (the kernel may grow them for a while), then pulling stops
            long pulled = -1;
            for (int i = 0; i < 50 && pulled != SESSIONS.pulled.get() - pulledBefore; i++) {
                pulled = SESSIONS.pulled.get() - pulledBefore;
                Thread.sleep(300);
            }
            assertEquals(pulled, SESSIONS.pulled.get() - pulledBefore, "nothing pulled while the client reads nothing");
            assertTrue(pulled < total / 2, "pulled " + pulled + " of " + total + " rows for a client reading none");
            StringBuilder tags = new StringBuilder();
            String types = client.readUntilReady(tags);
            assertEquals(total + 3, types.length()); // T, the rows, C, Z
            assertEquals("SELECT " + total + ";", tags.toString());
        }
    }
}
