package io.coilgun.pgwire;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.pgwire.auth.Authentication;
import io.coilgun.pgwire.codec.BackendMessageEncoder;
import io.coilgun.pgwire.codec.FrontendMessageDecoder;
import io.coilgun.pgwire.protocol.CancelRegistry;
import io.coilgun.pgwire.protocol.StartupHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random and mutated password and SASL messages through the real decoder and handler with SCRAM-SHA-256 and
 * password authentication: nothing escapes the pipeline, every answer is a whole message, no input causes an
 * internal error (XX000), and under SCRAM no
 * input ever gets AuthenticationOk (the proof cannot be guessed). Seeded ({@code -Dcoilgun.seed=...}).
 */
class AuthenticationFuzzTest {
    private static final Map<String, String> USERS = Map.of("u", "s3cret");

    private static byte[] saslInitial(String mechanism, String data) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.writeBytes((mechanism + "\0").getBytes(StandardCharsets.UTF_8));
        byte[] bytes = data.getBytes(StandardCharsets.UTF_8);
        body.writeBytes(new byte[] {(byte) (bytes.length >>> 24), (byte) (bytes.length >>> 16),
                (byte) (bytes.length >>> 8), (byte) bytes.length});
        body.writeBytes(bytes);
        return RawPgClient.typed('p', body.toByteArray());
    }

    private static final List<byte[]> VALID = List.of(
            saslInitial("SCRAM-SHA-256", "n,,n=,r=abcdefgh"), saslInitial("SCRAM-SHA-256", "y,,n=u,r=x"),
            saslInitial("SCRAM-SHA-256", "p=tls-server-end-point,,n=,r=x"), saslInitial("PLAIN", "x"),
            RawPgClient.typed('p', "c=biws,r=abcdefgh,p=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=".getBytes()),
            RawPgClient.typed('p', "s3cret\0".getBytes()), RawPgClient.typed('p', "wrong\0".getBytes()),
            RawPgClient.typed('p', new byte[0]), RawPgClient.query("SELECT 1"), RawPgClient.sync(),
            RawPgClient.typed('X', new byte[0]));

    @Test
    void randomAuthenticationInputNeverBreaksTheServer() {
        long seed = Long.getLong("coilgun.seed", System.nanoTime());
        System.out.println("AuthenticationFuzzTest seed=" + seed);
        Random random = new Random(seed);
        FakeSessionFactory sessions = new FakeSessionFactory();
        Authentication scram = Authentication.scram(USERS);
        Authentication password = Authentication.password(USERS);
        for (int round = 0; round < 2000; round++) {
            boolean isScram = random.nextBoolean();
            EmbeddedChannel channel = new EmbeddedChannel(new FrontendMessageDecoder(4096),
                    new BackendMessageEncoder(), new StartupHandler(sessions, new CancelRegistry(), 100,
                            isScram ? scram : password, null, Duration.ofSeconds(60)));
            channel.writeInbound(Unpooled.wrappedBuffer(RawPgClient.startup("user", "u", "database", "d")));
            byte[] input = input(random);
            int at = 0;
            while (at < input.length && channel.isOpen()) {
                int n = Math.min(input.length - at, 1 + random.nextInt(64));
                channel.writeInbound(Unpooled.wrappedBuffer(input, at, n));
                channel.runPendingTasks();
                at += n;
            }
            channel.checkException();
            boolean authenticated = checkFraming(channel, seed, round);
            if (isScram) {
                assertFalse(authenticated, "SCRAM authenticated random input, seed " + seed + " round " + round);
            }
            channel.finishAndReleaseAll();
        }
    }

    private static byte[] input(Random random) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int messages = 1 + random.nextInt(4);
        for (int i = 0; i < messages; i++) {
            byte[] m = VALID.get(random.nextInt(VALID.size())).clone();
            switch (random.nextInt(5)) {
                case 0 -> m[random.nextInt(m.length)] = (byte) random.nextInt(256);
                case 1 -> m = Arrays.copyOf(m, Math.max(1, random.nextInt(m.length)));
                case 2 -> {
                    m = new byte[1 + random.nextInt(100)];
                    random.nextBytes(m);
                }
                default -> {
                    // left valid
                }
            }
            out.write(m, 0, m.length);
        }
        return out.toByteArray();
    }

    /** Checks that the output is whole messages; true if one of them is AuthenticationOk. */
    private static boolean checkFraming(EmbeddedChannel channel, long seed, int round) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        Object o;
        while ((o = channel.readOutbound()) != null) {
            ByteBuf buf = (ByteBuf) o;
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            buf.release();
            all.write(bytes, 0, bytes.length);
        }
        byte[] out = all.toByteArray();
        boolean ok = false;
        int i = 0;
        while (i < out.length) {
            assertTrue(i + 5 <= out.length, "truncated header, seed " + seed + " round " + round);
            int length = ((out[i + 1] & 0xFF) << 24) | ((out[i + 2] & 0xFF) << 16) | ((out[i + 3] & 0xFF) << 8)
                    | (out[i + 4] & 0xFF);
            assertTrue(length >= 4 && i + 1 + length <= out.length, "bad frame, seed " + seed + " round " + round);
            String message = new String(out, i + 5, length - 4, StandardCharsets.UTF_8);
            assertFalse(out[i] == 'E' && message.contains("CXX000"), "internal error " + message + ", seed " + seed
                    + " round " + round);
            if (out[i] == 'R' && length == 8 && out[i + 5] == 0 && out[i + 6] == 0 && out[i + 7] == 0
                    && out[i + 8] == 0) {
                ok = true;
            }
            i += 1 + length;
        }
        return ok;
    }
}
