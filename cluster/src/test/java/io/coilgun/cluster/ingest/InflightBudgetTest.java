package io.coilgun.cluster.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.error.CoilgunException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class InflightBudgetTest {
    @Test
    void statementsWaitForRoomFirstComeFirstServed() throws Exception {
        InflightBudget budget = new InflightBudget(10, 60_000);
        assertEquals(6, budget.acquire(6).get());
        CompletableFuture<Integer> big = budget.acquire(8);
        CompletableFuture<Integer> small = budget.acquire(1);
        assertFalse(big.isDone());
        assertFalse(small.isDone(), "no overtaking of a statement that waits, though there would be room");
        budget.release(6);
        assertEquals(8, big.get());
        assertEquals(1, small.get());
        assertEquals(9, budget.inflight());
        budget.release(8);
        budget.release(1);
        assertEquals(0, budget.inflight());
    }

    @Test
    void aStatementBiggerThanTheBoundTakesAllOfIt() throws Exception {
        InflightBudget budget = new InflightBudget(10, 60_000);
        assertEquals(10, budget.acquire(50_000).get());
        budget.release(10);
        assertEquals(0, budget.inflight());
    }

    @Test
    void noRoomInTimeIs53000AndTakesNothing() throws Exception {
        InflightBudget budget = new InflightBudget(4, 50);
        assertEquals(4, budget.acquire(4).get());
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> budget.acquire(2).get());
        assertTrue(e.getCause() instanceof CoilgunException, e.toString());
        assertEquals("53000", ((CoilgunException) e.getCause()).state().code());
        budget.release(4);
        assertEquals(0, budget.inflight(), "the waiter that gave up holds nothing");
        assertEquals(3, budget.acquire(3).get());
    }
}
