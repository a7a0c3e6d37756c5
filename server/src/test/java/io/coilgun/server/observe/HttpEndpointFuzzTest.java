package io.coilgun.server.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.unit.TaskSample;
import io.coilgun.pgwire.auth.Authentication;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random and mutated requests to the node's HTTP listener (the JDK's server and Coilgun's handler, with SCRAM users
 * asking for Basic logins): every request that gets an answer gets a well-formed status line, a bad login never gets
 * past 401, and the listener answers /health after all of them. Seeded; {@code -Dcoilgun.seed=...} replays one.
 */
class HttpEndpointFuzzTest {
    private static final String[] VALID = {
        "GET /health HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /metrics HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " + basic("alice:s3cret") + "\r\n\r\n",
        "GET /status.json?html=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " + basic("alice:wrong") + "\r\n\r\n",
        "HEAD /ready HTTP/1.1\r\nHost: x\r\nAuthorization: Basic %%%\r\n\r\n",
        "POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc",
        "GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\nAuthorization: basic " + basic(":") + "\r\n\r\n",
    };

    @Test
    void randomRequestsGetAnAnswerOrAClosedConnectionAndTheListenerGoesOn() throws Exception {
        long seed = Long.getLong("coilgun.seed", System.nanoTime());
        System.out.println("HttpEndpointFuzzTest seed=" + seed);
        Random random = new Random(seed);
        NodeMeters meters = new NodeMeters("n1");
        HttpEndpoint.Source source = new HttpEndpoint.Source() {
            @Override
            public List<TaskSample> sample() {
                return List.of();
            }

            @Override
            public NodeMeters meters() {
                return meters;
            }

            @Override
            public NodeStatusReport report() {
                throw new IllegalStateException("no report in this test");
            }

            @Override
            public boolean started() {
                return true;
            }
        };
        try (HttpEndpoint http = HttpEndpoint.start("127.0.0.1", 0, source,
                Authentication.scram(Map.of("alice", "s3cret")))) {
            for (int round = 0; round < 400; round++) {
                byte[] request = mutate(VALID[random.nextInt(VALID.length)], random);
                String answer = exchange(http.port(), request);
                if (!answer.isEmpty()) {
                    assertTrue(answer.startsWith("HTTP/1.1 "), "seed " + seed + " round " + round + ": " + answer);
                    int status = Integer.parseInt(answer.substring(9, 12));
                    boolean goodLogin = new String(request, StandardCharsets.ISO_8859_1)
                            .contains(basic("alice:s3cret"));
                    assertTrue(status != 200 || goodLogin || answer.contains("ok"),
                            "seed " + seed + " round " + round + ": 200 without the login: " + answer);
                }
            }
            String health = exchange(http.port(), VALID[0].getBytes(StandardCharsets.ISO_8859_1));
            assertTrue(health.startsWith("HTTP/1.1 200"), health);
            assertEquals(401, Integer.parseInt(exchange(http.port(), ("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
                    .getBytes(StandardCharsets.ISO_8859_1)).substring(9, 12)));
        }
    }

    private static String basic(String pair) {
        return Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
    }

    /** The request with a few bytes changed, cut, doubled or inserted (or pure noise, now and then). */
    private static byte[] mutate(String valid, Random random) {
        if (random.nextInt(20) == 0) {
            byte[] noise = new byte[random.nextInt(300)];
            random.nextBytes(noise);
            return noise;
        }
        StringBuilder b = new StringBuilder(valid);
        int edits = random.nextInt(4);
        for (int i = 0; i < edits && b.length() > 0; i++) {
            int at = random.nextInt(b.length());
            switch (random.nextInt(4)) {
                case 0 -> b.deleteCharAt(at);
                case 1 -> b.insert(at, (char) random.nextInt(256));
                case 2 -> b.setCharAt(at, (char) (32 + random.nextInt(95)));
                default -> b.insert(at, b.substring(at, Math.min(b.length(), at + random.nextInt(20))));
            }
        }
        return b.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /** Sends the bytes and reads what comes back within a second (empty: nothing, or the connection closed). */
    private static String exchange(int port, byte[] request) throws Exception {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            s.setSoTimeout(1_000);
            OutputStream out = s.getOutputStream();
            out.write(request);
            out.flush();
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[512];
            int n;
            try {
                n = in.readNBytes(buf, 0, buf.length);
            } catch (java.net.SocketTimeoutException e) {
                n = 0;
            }
            return new String(buf, 0, n, StandardCharsets.ISO_8859_1);
        }
    }
}
