package io.coilgun.pgwire;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.pgwire.codec.BackendMessageEncoder;
import io.coilgun.pgwire.codec.FrontendMessageDecoder;
import io.coilgun.pgwire.protocol.StartupHandler;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random and mutated client input through the real decoder and protocol handler (on an embedded channel): whatever
 * arrives, nothing escapes the pipeline as an exception, the server answers only with whole, well-framed messages,
 * and it either keeps the connection or closes it. Seeded; the seed is printed so a failure can be replayed with
 * {@code -Dcoilgun.seed=...}.
 */
class FrontendFuzzTest {
    private static final int MAX_MESSAGE = 4096;
    private static final List<byte[]> VALID = List.of(
            RawPgClient.query("SELECT 1"), RawPgClient.query("SELECT many; SET x = 1"),
            RawPgClient.parse("s", "ECHO $1 $2", 23, 0), RawPgClient.bind("p", "s", "1", null),
            RawPgClient.describe('P', "p"), RawPgClient.describe('S', "s"), RawPgClient.execute("p", 1),
            RawPgClient.execute("", 0), RawPgClient.parse("", "SELECT many"), RawPgClient.bind("", ""),
            RawPgClient.sync(), RawPgClient.typed('H', new byte[0]), RawPgClient.typed('C', new byte[] {'S', 's', 0}),
            RawPgClient.query("COPY t (a, b) FROM STDIN CSV"), RawPgClient.typed('d', "1,2\n3,4\n".getBytes()),
            RawPgClient.typed('c', new byte[0]), RawPgClient.typed('f', new byte[] {'x', 0}));

    @Test
    void randomAndMutatedInputNeverBreaksTheServer() {
        long seed = Long.getLong("coilgun.seed", System.nanoTime());
        System.out.println("FrontendFuzzTest seed=" + seed);
        Random random = new Random(seed);
        FakeSessionFactory sessions = new FakeSessionFactory();
        for (int round = 0; round < 3000; round++) {
            EmbeddedChannel channel = new EmbeddedChannel(new FrontendMessageDecoder(MAX_MESSAGE),
                    new BackendMessageEncoder(), new StartupHandler(sessions));
            channel.writeInbound(Unpooled.wrappedBuffer(RawPgClient.startup("user", "u", "database", "d")));
            byte[] input = input(random);
            // Deliver in random pieces, as TCP may.
            int at = 0;
            while (at < input.length && channel.isOpen()) {
                int n = Math.min(input.length - at, 1 + random.nextInt(64));
                channel.writeInbound(Unpooled.wrappedBuffer(input, at, n));
                channel.runPendingTasks();
                at += n;
            }
            channel.checkException();
            checkFraming(channel, seed, round);
            channel.finishAndReleaseAll();
        }
        assertTrue(sessions.opened.get() >= 3000);
    }

    /** Valid messages, some with bytes flipped, cut short or stretched, plus pure noise. */
    private static byte[] input(Random random) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int messages = 1 + random.nextInt(12);
        for (int i = 0; i < messages; i++) {
            byte[] m = VALID.get(random.nextInt(VALID.size())).clone();
            switch (random.nextInt(6)) {
                case 0 -> m[random.nextInt(m.length)] = (byte) random.nextInt(256); // flip a byte
                case 1 -> m = Arrays.copyOf(m, Math.max(1, random.nextInt(m.length))); // cut short
                case 2 -> {
                    m = new byte[1 + random.nextInt(200)]; // noise
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

    /** Every outbound buffer, concatenated, is a sequence of whole {@code type, length, body} messages. */
    private static void checkFraming(EmbeddedChannel channel, long seed, int round) {
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
        int i = 0;
        while (i < out.length) {
            assertTrue(i + 5 <= out.length, "truncated header, seed " + seed + " round " + round);
            int length = ((out[i + 1] & 0xFF) << 24) | ((out[i + 2] & 0xFF) << 16) | ((out[i + 3] & 0xFF) << 8)
                    | (out[i + 4] & 0xFF);
            assertTrue(length >= 4 && i + 1 + length <= out.length, "bad frame, seed " + seed + " round " + round);
            i += 1 + length;
        }
    }
}
