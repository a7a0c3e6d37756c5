package io.coilgun.cluster.sync;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ChangesTest {
    @Test
    void aConditionThatHoldsReturnsAtOnce() {
        assertTrue(new Changes().await(() -> true, 0));
    }

    @Test
    void aConditionThatNeverHoldsTimesOut() {
        long began = System.nanoTime();
        assertFalse(new Changes().await(() -> false, 50));
        assertTrue(System.nanoTime() - began >= 50_000_000L, "it waited the whole timeout");
    }

    @Test
    void aSignalAfterTheChangeWakesTheWaiter() throws Exception {
        Changes changes = new Changes();
        AtomicBoolean done = new AtomicBoolean();
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> changes.await(done::get, 60_000));
        Thread.sleep(50); // the waiter is (very likely) waiting now
        done.set(true);
        changes.signal();
        assertTrue(waiter.get(10, TimeUnit.SECONDS), "woken by the signal, long before its timeout");
    }

    @Test
    void anInterruptEndsTheWaitAndKeepsTheFlag() throws Exception {
        Changes changes = new Changes();
        boolean[] result = {true, false};
        Thread t = new Thread(() -> {
            result[0] = changes.await(() -> false, 60_000);
            result[1] = Thread.currentThread().isInterrupted();
        });
        t.start();
        Thread.sleep(50);
        t.interrupt();
        t.join(10_000);
        assertFalse(result[0]);
        assertTrue(result[1]);
    }
}
