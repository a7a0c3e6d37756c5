package io.coilgun.pgwire.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.pgwire.codec.BackendMessage.BackendKeyData;
import io.coilgun.pgwire.codec.BackendMessageEncoder;
import io.coilgun.pgwire.codec.FrontendMessage;
import io.coilgun.pgwire.codec.FrontendMessage.Bind;
import io.coilgun.pgwire.codec.FrontendMessage.Describe;
import io.coilgun.pgwire.codec.FrontendMessage.Execute;
import io.coilgun.pgwire.codec.FrontendMessage.Parse;
import io.coilgun.pgwire.codec.FrontendMessage.Query;
import io.coilgun.pgwire.protocol.ServerOutput.Message;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The query phase on an embedded channel: decoded messages in, the encoder's bytes out. */
class QueryHandlerTest {
    private final ScriptedSession session = new ScriptedSession();
    private final CancelRegistry registry = new CancelRegistry();
    private final BackendKeyData key = registry.register(session::cancel);

    private EmbeddedChannel channel(FrontendMessage... queued) {
        ArrayDeque<FrontendMessage> pending = new ArrayDeque<>(List.of(queued));
        return new EmbeddedChannel(new BackendMessageEncoder(), new QueryHandler(session, registry, key, pending));
    }

    private static Bind bind(String statement, String... values) {
        byte[][] parameters = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            parameters[i] = values[i].getBytes(StandardCharsets.UTF_8);
        }
        return new Bind("", statement, new short[0], parameters, new short[0]);
    }

    @Test
    void simpleQueryRoundTrip() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(new Query("SELECT hello"));
        List<Message> out = ServerOutput.messages(channel);
        assertEquals("TDCZ", ServerOutput.types(out));
        assertEquals("hello", out.get(1).text(6)); // DataRow: Int16 count, Int32 length, the value
        assertEquals("SELECT 1\0", out.get(2).text(0));
        assertEquals('I', out.get(3).body()[0]);
        assertEquals(List.of("SELECT hello"), session.executed);
    }

    @Test
    void errorEndsTheQueryWithReadyForQueryAndTheNextOneRuns() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(new Query("SET a; FAIL; SET b"));
        List<Message> out = ServerOutput.messages(channel);
        assertEquals("CEZ", ServerOutput.types(out));
        assertEquals(Map.of('S', "ERROR", 'V', "ERROR", 'C', "22012", 'M', "division by zero"), out.get(1).fields());
        assertEquals(List.of("SET a", "FAIL"), session.executed); // the rest of the query was not run
        assertEquals(1, session.failures);

        channel.writeInbound(new Query("SELECT syntax"));
        out = ServerOutput.messages(channel);
        assertEquals("EZ", ServerOutput.types(out));
        assertEquals("42601", out.get(0).fields().get('C'));

        channel.writeInbound(new Query("SET c"));
        assertEquals("CZ", ServerOutput.types(ServerOutput.messages(channel)));
        assertTrue(channel.isOpen());
    }

    @Test
    void extendedProtocolParseBindExecuteSync() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(new Parse("s", "SELECT $1", new int[0]), bind("s", "42"), new Describe('P', ""),
                new Execute("", 0), FrontendMessage.Sync.INSTANCE);
        List<Message> out = ServerOutput.messages(channel);
        assertEquals("12TDCZ", ServerOutput.types(out));
        assertEquals("42", out.get(3).text(6));
    }

    @Test
    void extendedErrorSkipsToSync() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(new Parse("s", "SELECT $1", new int[0]), bind("s", "1", "2"),
                new Execute("", 0), new Query("SET ignored"), FrontendMessage.Sync.INSTANCE);
        List<Message> out = ServerOutput.messages(channel);
        assertEquals("1EZ", ServerOutput.types(out));
        assertEquals("08P01", out.get(1).fields().get('C')); // two values for one parameter
        assertTrue(session.executed.isEmpty());

        channel.writeInbound(bind("s", "7"), new Execute("", 0), FrontendMessage.Sync.INSTANCE);
        assertEquals("2DCZ", ServerOutput.types(ServerOutput.messages(channel)));
    }

    @Test
    void messagesQueuedDuringStartupAreHandledFirst() {
        EmbeddedChannel channel = channel(new Query("SET a"), new Query("SET b"));
        assertEquals("CZCZ", ServerOutput.types(ServerOutput.messages(channel)));
        assertEquals(List.of("SET a", "SET b"), session.executed);
        assertTrue(channel.config().isAutoRead());
    }

    @Test
    void terminateClosesTheSessionOnceAndFreesTheKey() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(FrontendMessage.Terminate.INSTANCE);
        assertFalse(channel.isOpen());
        assertEquals(1, session.closes);
        assertEquals(0, registry.size());
        assertFalse(registry.cancel(key.processId(), key.secretKey()));
    }

    @Test
    void unknownMessageTypeIsFatal() {
        EmbeddedChannel channel = channel();
        channel.writeInbound(new FrontendMessage.OtherMessage('?'));
        List<Message> out = ServerOutput.messages(channel);
        assertEquals("E", ServerOutput.types(out));
        assertEquals("FATAL", out.get(0).fields().get('V'));
        assertEquals("invalid frontend message type 63", out.get(0).fields().get('M'));
        assertFalse(channel.isOpen());
        assertEquals(1, session.closes);
    }
}
