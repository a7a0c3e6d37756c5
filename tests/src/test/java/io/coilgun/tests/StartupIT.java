package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.server.boot.Main;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Start-up problems give one clear line on stderr and a non-zero exit, not a stack trace. */
@Tag("integration")
@Timeout(120)
@SecondNodeLane
class StartupIT {
    @TempDir
    Path dir;

    @Test
    void portInUse() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String err = runExpectingFailure("start", "--port", String.valueOf(taken.getLocalPort()),
                    "--data-dir", dir.resolve("d").toString());
            assertTrue(err.contains("port " + taken.getLocalPort() + " on 127.0.0.1 is already in use"), err);
        }
    }

    @Test
    void dataDirectoryNotWritable() throws Exception {
        Path file = Files.writeString(dir.resolve("a-file"), "x");
        String err = runExpectingFailure("start", "--port", "0", "--data-dir", file.resolve("data").toString());
        assertTrue(err.contains("is not writable"), err);
    }

    @Test
    void externalKafkaUnreachable() throws Exception {
        Path config = Files.writeString(dir.resolve("coilgun.properties"), "kafka-connect-timeout-ms = 3000\n");
        String err = runExpectingFailure("start", "--config", config.toString(), "--port", "0", "--data-dir",
                dir.resolve("d").toString(), "--kafka", "127.0.0.1:1");
        assertTrue(err.contains("cannot reach Kafka at 127.0.0.1:1"), err);
    }

    /** Runs the CLI in-process; returns stderr, which must be exactly one line. */
    static String runExpectingFailure(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream old = System.err;
        int code;
        System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            code = Main.run(args);
        } finally {
            System.setErr(old);
        }
        String text = err.toString(StandardCharsets.UTF_8).strip();
        assertNotEquals(0, code, "exit code");
        assertEquals(1, text.lines().count(), "one line on stderr, got:\n" + text);
        assertTrue(text.startsWith("coilgun: "), text);
        return text;
    }
}
