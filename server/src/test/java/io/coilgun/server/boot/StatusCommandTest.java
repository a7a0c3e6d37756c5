package io.coilgun.server.boot;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StatusCommandTest {
    private static String status(long done, long total) {
        return "{\"node\":{\"id\":\"n1\",\"ready\":true},\"time_ms\":1000,\"totals\":{\"events\":0},"
                + "\"metrics\":[{\"name\":\"m\",\"stream\":\"pay\",\"state\":\"backfilling\",\"backfilled_events\":"
                + done + ",\"backfill_events\":" + total + "}]}";
    }

    /** A task whose fill went live drops out of coilgun.metrics' sums: the bar goes on from where it was. */
    @Test
    void aBackfillsBarNeverGoesBack() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        StatusCommand c = new StatusCommand().printingTo(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        ObjectMapper json = new ObjectMapper();
        c.print(json.readTree(status(272_525, 800_000)), null);
        c.print(json.readTree(status(181_089, 602_840)), null); // a task of 197,160 events went live
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("34% 272,525 / 800,000 events"), out);
        assertTrue(out.contains("47% 378,249 / 800,000 events"), out);
    }
}
