package io.coilgun.cluster.unit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import org.junit.jupiter.api.Test;

class StallWatchdogTest {
    /** A unit on a real thread: steps of the given lengths, each followed by a short "poll". */
    private static final class FakeUnit implements Runnable {
        private final long[] stepsMs;
        private volatile long busySince;
        final Thread thread = new Thread(this, "fake-unit");

        FakeUnit(long... stepsMs) {
            this.stepsMs = stepsMs;
        }

        @Override
        public void run() {
            try {
                for (long ms : stepsMs) {
                    busySince = System.nanoTime();
                    slowStep(ms);
                    busySince = 0;
                    Thread.sleep(30); // in a poll
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private static void slowStep(long ms) throws InterruptedException {
            Thread.sleep(ms);
        }

        StallWatchdog.Watched watched() {
            return new StallWatchdog.Watched("u9", () -> busySince, thread);
        }
    }

    @Test
    void aLongStepIsCountedOnceAndLoggedWithWhereTheUnitWas() throws Exception {
        SimpleMeterRegistry meters = new SimpleMeterRegistry();
        FakeUnit unit = new FakeUnit(5, 10, 300, 5);
        StallWatchdog w = StallWatchdog.watch(List.of(unit.watched()), meters, "n1");
        try {
            unit.thread.start();
            unit.thread.join();
            Thread.sleep(100); // the watchdog's next ticks
            assertEquals(1.0, meters.counter("coilgun.unit.stalls").count(), "only the 300 ms step");
            String logged = w.lastStall();
            assertTrue(logged.startsWith("unit=u9 stalled: a step between two polls took about "), logged);
            assertTrue(logged.contains("slowStep"), logged);
            long ms = Long.parseLong(logged.replaceAll("(?s).*took about (\\d+) ms.*", "$1"));
            assertTrue(ms >= 290 && ms < 1_000, logged);
        } finally {
            w.stop();
        }
    }
}
