package io.coilgun.server.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coilgun.cluster.Progress;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ProgressBarTest {
    @Test
    void bars() {
        assertEquals("[..............................] 0%", ProgressBar.of(0, 10));
        assertEquals("[###############...............] 50%", ProgressBar.of(5, 10));
        assertEquals("[##############################] 100%", ProgressBar.of(10, 10));
        assertEquals("[##############################] 100%", ProgressBar.of(0, 0)); // nothing to do: done
        assertEquals("[##############################] 100%", ProgressBar.of(12, 10));
    }

    @Test
    void linesOfStart() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Progress p = ProgressBar.printingTo(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        p.report(Progress.REPLAY, 1_234, 3_000);
        p.report(Progress.DRAIN, 3, 4);
        assertEquals("coilgun: start-up replay [############..................] 41% 1,234 / 3,000 records\n"
                + "coilgun: drain [######################........] 75% 3 / 4 tasks handed over\n",
                bytes.toString(StandardCharsets.UTF_8));
    }
}
