package io.coilgun.pgwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Exact message sequences on a raw socket: startup, pipelining, malformed input. */
class PgWireProtocolTest {
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

    /** SSLRequest gets 'N', then a normal startup: AuthenticationOk, ParameterStatus*, BackendKeyData, 'I'. */
    private static RawPgClient connect(Map<String, String> status) throws IOException {
        RawPgClient client = new RawPgClient(server.port());
        client.send(RawPgClient.untypedCode(80877103));
        assertEquals('N', client.readByte());
        client.send(RawPgClient.startup("user", "x", "database", "db", "application_name", "raw"));
        RawPgClient.Message auth = client.read();
        assertEquals('R', auth.type());
        assertEquals(4, auth.body().length);
        RawPgClient.Message message;
        while ((message = client.read()).type() == 'S') {
            String[] pair = new String(message.body(), java.nio.charset.StandardCharsets.UTF_8).split("\0");
            status.put(pair[0], pair.length > 1 ? pair[1] : "");
        }
        assertEquals('K', message.type());
        assertEquals(8, message.body().length);
        RawPgClient.Message ready = client.read();
        assertEquals('Z', ready.type());
        assertEquals('I', ready.body()[0]);
        return client;
    }

    @Test
    void startupReportsServerParameters() throws IOException {
        Map<String, String> status = new LinkedHashMap<>();
        connect(status).close();
        assertEquals("UTF8", status.get("client_encoding"));
        assertEquals("ISO, MDY", status.get("DateStyle"));
        assertEquals("on", status.get("integer_datetimes"));
        assertEquals("on", status.get("standard_conforming_strings"));
        assertEquals("x", status.get("session_authorization"));
        assertEquals("raw", status.get("application_name"));
        assertEquals("test", status.get("coilgun_version"));
        assertTrue(status.containsKey("server_version"));
    }

    @Test
    void pipelinedMessagesAreAnsweredInOrder() throws IOException {
        try (RawPgClient client = connect(new LinkedHashMap<>())) {
            client.send(RawPgClient.query("SLOW"), RawPgClient.query("SELECT 1; SELECT many"),
                    RawPgClient.query(" ; "), RawPgClient.query("SELECT syntax"),
                    RawPgClient.typed('P', new byte[] {0, 'x', 0, 0, 0}), RawPgClient.typed('E', new byte[5]),
                    RawPgClient.typed('S', new byte[0]), RawPgClient.query("SELECT 1"));
            StringBuilder tags = new StringBuilder();
            assertEquals("TDCZ", client.readUntilReady(tags));
            assertEquals("TDCTDDCZ", client.readUntilReady(tags));
            assertEquals("SELECT 1;SELECT 1;SELECT 2;", tags.toString());
            assertEquals("IZ", client.readUntilReady(null));
            RawPgClient.Message error = client.read();
            assertEquals('E', error.type());
            assertEquals(Map.of('S', "ERROR", 'V', "ERROR", 'C', "42601",
                    'M', "syntax error at or near \"syntax\"", 'P', "5"), error.fields());
            assertEquals('Z', client.read().type());
            assertEquals('1', client.read().type()); // ParseComplete
            RawPgClient.Message noPortal = client.read(); // Execute without Bind
            assertEquals("34000", noPortal.fields().get('C'));
            assertEquals('Z', client.read().type());
            assertEquals("TDCZ", client.readUntilReady(null));
            client.send(RawPgClient.typed('X', new byte[0]));
            assertTrue(client.closedByServer());
        }
    }

    @Test
    void extendedProtocolErrorsSkipToSyncAndPortalsSuspend() throws IOException {
        try (RawPgClient client = connect(new LinkedHashMap<>())) {
            client.send(RawPgClient.parse("s1", "ECHO $1", 23), RawPgClient.describe('S', "s1"),
                    RawPgClient.bind("", "s1", "abc"), RawPgClient.execute("", 0), RawPgClient.sync());
            assertEquals('1', client.read().type());
            assertEquals('t', client.read().type()); // ParameterDescription
            assertEquals('T', client.read().type());
            RawPgClient.Message bad = client.read();
            assertEquals("22P02", bad.fields().get('C'), bad.fields().toString());
            assertEquals('Z', client.read().type()); // Execute was skipped

            client.send(RawPgClient.bind("", "s1", "1", "2"), RawPgClient.sync());
            assertEquals("08P01", client.read().fields().get('C'));
            assertEquals('Z', client.read().type());

            client.send(RawPgClient.bind("", "nope"), RawPgClient.sync());
            assertEquals("26000", client.read().fields().get('C'));
            assertEquals('Z', client.read().type());

            client.send(RawPgClient.bind("", "s1", "42"), RawPgClient.describe('P', ""),
                    RawPgClient.execute("", 0), RawPgClient.sync());
            assertEquals("2TDCZ", client.readUntilReady(null));

            client.send(RawPgClient.parse("", "SELECT many"), RawPgClient.bind("", ""),
                    RawPgClient.execute("", 1), RawPgClient.execute("", 1), RawPgClient.execute("", 1),
                    RawPgClient.sync());
            assertEquals("12DsDCCZ", client.readUntilReady(null)); // the last rows end the portal; again: done

            client.send(RawPgClient.parse("", ""), RawPgClient.bind("", ""), RawPgClient.execute("", 0),
                    RawPgClient.sync());
            assertEquals("12IZ", client.readUntilReady(null)); // an empty query: EmptyQueryResponse
        }
    }

    @Test
    void oversizedMessageEndsOnlyThatConnection() throws IOException {
        try (RawPgClient good = connect(new LinkedHashMap<>()); RawPgClient bad = connect(new LinkedHashMap<>())) {
            bad.send(new byte[] {'Q', 0x7F, 0, 0, 0}); // a 2 GB message: refused from its header
            RawPgClient.Message error = bad.read();
            assertEquals('E', error.type());
            assertEquals("FATAL", error.fields().get('S'));
            assertEquals("08P01", error.fields().get('C'));
            assertTrue(bad.closedByServer());

            good.send(RawPgClient.query("SELECT 1"));
            assertEquals("TDCZ", good.readUntilReady(null));
        }
    }

    @Test
    void malformedStartupAndUnknownMessagesAreProtocolViolations() throws IOException {
        try (RawPgClient client = new RawPgClient(server.port())) {
            client.send(new byte[] {0, 0, 0, 3, 0, 0, 0, 0});
            assertEquals("08P01", client.read().fields().get('C'));
            assertTrue(client.closedByServer());
        }
        try (RawPgClient client = connect(new LinkedHashMap<>())) {
            client.send(RawPgClient.typed('Q', new byte[] {'x'})); // no terminator
            assertEquals("08P01", client.read().fields().get('C'));
            assertTrue(client.closedByServer());
        }
        try (RawPgClient client = connect(new LinkedHashMap<>())) {
            client.send(RawPgClient.typed('?', new byte[0]));
            RawPgClient.Message error = client.read();
            assertEquals("08P01", error.fields().get('C'));
            assertEquals("invalid frontend message type 63", error.fields().get('M'));
            assertTrue(client.closedByServer());
        }
    }

    @Test
    void cancelRequestJustClosesAndMissingUserIsFatal() throws IOException {
        try (RawPgClient client = new RawPgClient(server.port())) {
            client.send(new byte[] {0, 0, 0, 16, 0x04, (byte) 0xD2, 0x16, 0x2E, 0, 0, 0, 1, 0, 0, 0, 2});
            assertTrue(client.closedByServer());
        }
        try (RawPgClient client = new RawPgClient(server.port())) {
            client.send(RawPgClient.startup("database", "db"));
            RawPgClient.Message error = client.read();
            assertEquals("FATAL", error.fields().get('V'));
            assertEquals("28000", error.fields().get('C'));
            assertTrue(client.closedByServer());
        }
    }

    @Test
    void newerMinorProtocolVersionIsNegotiatedDown() throws IOException {
        try (RawPgClient client = new RawPgClient(server.port())) {
            byte[] startup = RawPgClient.startup("user", "x", "_pq_.thing", "1");
            startup[6] = 0;
            startup[7] = 2; // protocol 3.2
            client.send(startup);
            RawPgClient.Message negotiate = client.read();
            assertEquals('v', negotiate.type());
            assertEquals(0, negotiate.body()[3]); // newest minor version: 0
            assertEquals(1, negotiate.body()[7]); // one unrecognized option
            assertEquals('R', client.read().type());
        }
    }
}
