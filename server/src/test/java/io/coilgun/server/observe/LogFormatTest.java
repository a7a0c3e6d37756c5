package io.coilgun.server.observe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;

/** The node's logback.xml: key=value lines by default, one JSON object per line with log-format json. */
class LogFormatTest {

    /** Configures a fresh logback context from logback.xml with {@code format} and logs two lines through it. */
    private static String log(String format) throws Exception {
        PrintStream saved = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String before = System.getProperty("coilgun.log.format");
        try {
            if (format != null) {
                System.setProperty("coilgun.log.format", format);
            }
            LoggerContext context = new LoggerContext();
            context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter()); // as SLF4J's provider does
            JoranConfigurator config = new JoranConfigurator();
            config.setContext(context);
            config.doConfigure(LogFormatTest.class.getResource("/logback.xml"));
            Logger log = context.getLogger("io.coilgun.cluster.task.TaskProcessor");
            log.info("task={} metric={} backfilled in {} ms", "t-1", "m \"q\"", 12);
            log.atWarn().addKeyValue("task", "t-2").log("a warning");
            context.getLogger("org.apache.kafka.clients.NetworkClient").warn("not shown: Kafka logs errors only");
            context.stop();
        } finally {
            System.setOut(saved);
            if (before == null) {
                System.clearProperty("coilgun.log.format");
            } else {
                System.setProperty("coilgun.log.format", before);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void keyValueByDefault() throws Exception {
        String[] lines = log(null).split("\n");
        assertEquals(2, lines.length, String.join("\n", lines));
        assertTrue(lines[0].matches("ts=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z level=INFO "
                + "logger=TaskProcessor task=t-1 metric=m \"q\" backfilled in 12 ms"), lines[0]);
        assertTrue(lines[1].endsWith("level=WARN logger=TaskProcessor a warning task=\"t-2\""), lines[1]);
    }

    @Test
    void jsonWhenAsked() throws Exception {
        String[] lines = log("json").split("\n");
        assertEquals(2, lines.length, String.join("\n", lines));
        ObjectMapper json = new ObjectMapper();
        JsonNode first = json.readTree(lines[0]);
        assertEquals("INFO", first.path("level").asText());
        assertEquals("io.coilgun.cluster.task.TaskProcessor", first.path("loggerName").asText());
        assertEquals("task=t-1 metric=m \"q\" backfilled in 12 ms", first.path("formattedMessage").asText());
        assertTrue(first.path("timestamp").asLong() > 0);
        JsonNode second = json.readTree(lines[1]);
        assertEquals("WARN", second.path("level").asText());
        assertEquals("t-2", second.path("kvpList").get(0).path("task").asText(), lines[1]);
    }
}
