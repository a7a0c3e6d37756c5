package io.coilgun.pgwire.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.pgwire.auth.Authentication;
import io.coilgun.pgwire.auth.ScramCredential;
import io.coilgun.pgwire.codec.BackendMessageEncoder;
import io.coilgun.pgwire.codec.FrontendMessage;
import io.coilgun.pgwire.codec.FrontendMessage.CancelRequest;
import io.coilgun.pgwire.codec.FrontendMessage.PasswordMessage;
import io.coilgun.pgwire.codec.FrontendMessage.Query;
import io.coilgun.pgwire.codec.FrontendMessage.StartupMessage;
import io.coilgun.pgwire.protocol.ServerOutput.Message;
import io.coilgun.pgwire.spi.PgException;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;

/**
 * The startup phase on an embedded channel: SSLRequest without TLS, trust, password (checked at once and off the
 * event loop) and SCRAM-SHA-256 authentication, CancelRequest, and the handover to a {@link QueryHandler}.
 */
class StartupHandlerTest {
    private static final Map<String, String> USERS = Map.of("u", "s3cret");

    private final ScriptedSession session = new ScriptedSession();
    private final CancelRegistry registry = new CancelRegistry();

    private EmbeddedChannel channel(Authentication authentication) {
        return new EmbeddedChannel(new BackendMessageEncoder(), new StartupHandler(info -> session, registry, 10,
                authentication, null, Duration.ofSeconds(60)));
    }

    private static StartupMessage startup(String user) {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("user", user);
        parameters.put("database", "db");
        return new StartupMessage(3, 0, parameters);
    }

    /** The rest of a successful startup: ParameterStatus*, BackendKeyData, ReadyForQuery; returns the key. */
    private Message assertStarted(EmbeddedChannel channel, List<Message> out) {
        String types = ServerOutput.types(out);
        assertTrue(types.matches("S+KZ"), types);
        Message key = out.get(out.size() - 2);
        assertEquals('I', out.get(out.size() - 1).body()[0]);
        assertEquals(session.startedProcessId, key.int32(0));
        assertNull(channel.pipeline().get(StartupHandler.class));
        assertNotNull(channel.pipeline().get(QueryHandler.class));
        assertEquals(1, registry.size());
        return key;
    }

    @Test
    void trustStartsAtOnceAndHandsOverToTheQueryHandler() {
        EmbeddedChannel channel = channel(Authentication.trust());
        channel.writeInbound(startup("anyone"), new Query("SELECT 1"));
        List<Message> out = ServerOutput.messages(channel);
        assertEquals('R', out.get(0).type());
        assertEquals(0, out.get(0).int32(0)); // AuthenticationOk
        int ready = ServerOutput.types(out).indexOf('Z');
        assertStarted(channel, out.subList(1, ready + 1));
        assertEquals("TDCZ", ServerOutput.types(out.subList(ready + 1, out.size()))); // the query handler's answer
    }

    @Test
    void sslRequestIsAnsweredNWithoutACertificate() {
        EmbeddedChannel channel = channel(Authentication.trust());
        channel.writeInbound(FrontendMessage.SslRequest.INSTANCE);
        assertArrayEquals(new byte[] {'N'}, ServerOutput.bytes(channel));
        channel.writeInbound(FrontendMessage.GssEncRequest.INSTANCE);
        assertArrayEquals(new byte[] {'N'}, ServerOutput.bytes(channel));
        channel.writeInbound(startup("u"));
        List<Message> out = ServerOutput.messages(channel);
        assertStarted(channel, out.subList(1, out.size()));
    }

    @Test
    void passwordIsAskedInClearAndChecked() {
        EmbeddedChannel channel = channel(Authentication.password(USERS));
        channel.writeInbound(startup("u"));
        List<Message> out = ServerOutput.messages(channel);
        assertEquals("R", ServerOutput.types(out));
        assertEquals(3, out.get(0).int32(0)); // AuthenticationCleartextPassword
        channel.writeInbound(new PasswordMessage("s3cret\0".getBytes(StandardCharsets.UTF_8)));
        out = ServerOutput.messages(channel);
        assertEquals(0, out.get(0).int32(0));
        assertStarted(channel, out.subList(1, out.size()));
    }

    @Test
    void wrongPasswordIsFatal() {
        EmbeddedChannel channel = channel(Authentication.password(USERS));
        channel.writeInbound(startup("u"));
        ServerOutput.messages(channel);
        channel.writeInbound(new PasswordMessage("wrong\0".getBytes(StandardCharsets.UTF_8)));
        List<Message> out = ServerOutput.messages(channel);
        assertEquals("E", ServerOutput.types(out));
        assertEquals(Map.of('S', "FATAL", 'V', "FATAL", 'C', "28P01",
                'M', "password authentication failed for user \"u\""), out.get(0).fields());
        assertFalse(channel.isOpen());
        assertEquals(0, registry.size());
    }

    @Test
    void messagesSentWhileAPasswordIsCheckedOffTheEventLoopGoToTheQueryHandler() throws InterruptedException {
        String verifier = ScramCredential.fromPassword("s3cret").toVerifier(); // a PBKDF2 per check: off the loop
        EmbeddedChannel channel = channel(Authentication.password(Map.of("u", verifier)));
        channel.writeInbound(startup("u"));
        ServerOutput.messages(channel);
        channel.writeInbound(new PasswordMessage("s3cret\0".getBytes(StandardCharsets.UTF_8)),
                new Query("SET a"), new Query("SET b"));
        // (reading pauses while the check runs, but a fast check may be over already: not asserted here)
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (channel.pipeline().get(QueryHandler.class) == null) {
            assertTrue(System.nanoTime() < deadline, "the password check did not end");
            Thread.sleep(5);
            channel.runPendingTasks();
        }
        List<Message> out = ServerOutput.messages(channel);
        int ready = ServerOutput.types(out).indexOf('Z');
        assertStarted(channel, out.subList(1, ready + 1));
        assertEquals("CZCZ", ServerOutput.types(out.subList(ready + 1, out.size())));
        assertEquals(List.of("SET a", "SET b"), session.executed);
        assertTrue(channel.config().isAutoRead());
    }

    @Test
    void scramSha256Exchange() throws GeneralSecurityException {
        EmbeddedChannel channel = channel(Authentication.scram(USERS));
        channel.writeInbound(startup("u"));
        List<Message> out = ServerOutput.messages(channel);
        assertEquals(10, out.get(0).int32(0)); // AuthenticationSASL
        assertEquals("SCRAM-SHA-256\0\0", out.get(0).text(4));

        String clientFirstBare = "n=,r=clientnonce";
        channel.writeInbound(new PasswordMessage(saslInitialResponse("n,," + clientFirstBare)));
        out = ServerOutput.messages(channel);
        assertEquals(11, out.get(0).int32(0)); // AuthenticationSASLContinue
        String serverFirst = out.get(0).text(4);
        Map<String, String> attributes = attributes(serverFirst);
        assertTrue(attributes.get("r").startsWith("clientnonce"));

        byte[] salted = pbkdf2("s3cret", Base64.getDecoder().decode(attributes.get("s")),
                Integer.parseInt(attributes.get("i")));
        byte[] clientKey = hmac(salted, "Client Key");
        String withoutProof = "c=biws,r=" + attributes.get("r");
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] signature = hmac(MessageDigest.getInstance("SHA-256").digest(clientKey), authMessage);
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ signature[i]);
        }
        String clientFinal = withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof);
        channel.writeInbound(new PasswordMessage(clientFinal.getBytes(StandardCharsets.UTF_8)));
        out = ServerOutput.messages(channel);
        assertEquals(12, out.get(0).int32(0)); // AuthenticationSASLFinal, with the server's signature
        String serverSignature = Base64.getEncoder().encodeToString(hmac(hmac(salted, "Server Key"), authMessage));
        assertEquals("v=" + serverSignature, out.get(0).text(4));
        assertEquals(0, out.get(1).int32(0));
        assertStarted(channel, out.subList(2, out.size()));
    }

    @Test
    void cancelRequestCancelsTheMatchingSessionAndCloses() {
        EmbeddedChannel started = channel(Authentication.trust());
        started.writeInbound(startup("u"));
        List<Message> out = ServerOutput.messages(started);
        Message key = out.get(ServerOutput.types(out).indexOf('K'));

        EmbeddedChannel wrongSecret = channel(Authentication.trust());
        wrongSecret.writeInbound(new CancelRequest(key.int32(0), key.int32(4) + 1));
        assertFalse(wrongSecret.isOpen());
        assertEquals(0, session.cancels);

        EmbeddedChannel canceller = channel(Authentication.trust());
        canceller.writeInbound(new CancelRequest(key.int32(0), key.int32(4)));
        assertFalse(canceller.isOpen());
        assertEquals(0, ServerOutput.bytes(canceller).length); // Postgres answers nothing
        assertEquals(1, session.cancels);
        assertTrue(started.isOpen());
    }

    @Test
    void anythingButAStartupIsAProtocolViolation() {
        EmbeddedChannel channel = channel(Authentication.trust());
        channel.writeInbound(new Query("SELECT 1"));
        List<Message> out = ServerOutput.messages(channel);
        assertEquals("E", ServerOutput.types(out));
        assertEquals("08P01", out.get(0).fields().get('C'));
        assertEquals("expected a startup message", out.get(0).fields().get('M'));
        assertFalse(channel.isOpen());
    }

    @Test
    void refusedSessionIsFatalAndNothingIsRegistered() {
        EmbeddedChannel channel = new EmbeddedChannel(new BackendMessageEncoder(), new StartupHandler(info -> {
            throw new PgException("3D000", "database \"db\" does not exist");
        }, registry, 10));
        channel.writeInbound(startup("u"));
        List<Message> out = ServerOutput.messages(channel);
        assertEquals("RE", ServerOutput.types(out));
        assertEquals("3D000", out.get(1).fields().get('C'));
        assertFalse(channel.isOpen());
        assertEquals(0, registry.size());
    }

    /** SASLInitialResponse: the mechanism, then the Int32 length of the client-first-message and the message. */
    private static byte[] saslInitialResponse(String clientFirst) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes("SCRAM-SHA-256\0".getBytes(StandardCharsets.UTF_8));
        byte[] message = clientFirst.getBytes(StandardCharsets.UTF_8);
        body.writeBytes(ByteBuffer.allocate(4).putInt(message.length).array());
        body.writeBytes(message);
        return body.toByteArray();
    }

    private static Map<String, String> attributes(String message) {
        Map<String, String> attributes = new LinkedHashMap<>();
        for (String attribute : message.split(",")) {
            attributes.put(attribute.substring(0, 1), attribute.substring(2));
        }
        return attributes;
    }

    private static byte[] pbkdf2(String password, byte[] salt, int iterations) throws GeneralSecurityException {
        PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
        return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
    }

    private static byte[] hmac(byte[] key, String data) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    }
}
