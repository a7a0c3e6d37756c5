package io.coilgun.tests.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The chaos run's verdict (issue 58): it passes only with nothing lost, nothing counted twice and every statement
 * answered, and names each event that fails it.
 */
class ChaosVerdictTest {
    static final Map<String, List<Long>> ANSWERED = Map.of("a", List.of(1L, 2L, 3L), "b", List.of(4L, 5L));

    @Test
    void everyEventInPlacePasses() {
        ChaosVerdict v = ChaosVerdict.judge(ANSWERED, Map.of("a", 3L, "b", 2L), Map.of(), Map.of());
        assertTrue(v.passed());
        assertEquals(List.of(), v.findings());
        assertEquals(0, v.lost() + v.doubleCounted() + v.unanswered());
        assertEquals(java.util.Set.of(), ChaosVerdict.suspects(ANSWERED, Map.of("a", 3L, "b", 2L), Map.of()));
    }

    @Test
    void aLostEventIsNamed() {
        Map<String, Long> counted = Map.of("a", 2L, "b", 2L);
        assertEquals(java.util.Set.of("a"), ChaosVerdict.suspects(ANSWERED, counted, Map.of()));
        ChaosVerdict v = ChaosVerdict.judge(ANSWERED, counted, Map.of("a", List.of(1L, 3L)), Map.of());
        assertFalse(v.passed());
        assertEquals(1, v.lost());
        assertEquals(0, v.doubleCounted());
        assertEquals("lost event 2 (card a): answered as accepted, not in the stream", v.findings().get(0).toString());
        assertEquals(1, v.findings().size());
    }

    @Test
    void anEventCountedTwiceIsNamed() {
        Map<String, Long> counted = Map.of("a", 3L, "b", 3L);
        ChaosVerdict v = ChaosVerdict.judge(ANSWERED, counted, Map.of("b", List.of(4L, 5L, 5L)), Map.of());
        assertFalse(v.passed());
        assertEquals(0, v.lost());
        assertEquals(1, v.doubleCounted());
        assertEquals(List.of("double event 5 (card b): in the stream 2 times"),
                v.findings().stream().map(Object::toString).toList());
    }

    @Test
    void anUnansweredStatementFailsTheRunEvenWhenApplied() {
        Map<Long, String> unanswered = Map.of(6L, "b", 7L, "a");
        Map<String, Long> counted = Map.of("a", 3L, "b", 3L); // 6 was applied, 7 was not
        assertEquals(java.util.Set.of("a", "b"), ChaosVerdict.suspects(ANSWERED, counted, unanswered));
        ChaosVerdict v = ChaosVerdict.judge(ANSWERED, counted, Map.of("a", List.of(1L, 2L, 3L),
                "b", List.of(4L, 5L, 6L)), unanswered);
        assertFalse(v.passed());
        assertEquals(0, v.lost());
        assertEquals(0, v.doubleCounted(), "an unanswered event that was applied is no double count");
        assertEquals(2, v.unanswered());
        assertEquals(List.of("unanswered event 7 (card a): never answered, not applied",
                "unanswered event 6 (card b): never answered, applied"),
                v.findings().stream().map(Object::toString).toList());
    }

    @Test
    void withoutTheStreamReadACardIsNamedByItsCount() {
        ChaosVerdict v = ChaosVerdict.judge(ANSWERED, Map.of("a", 1L, "b", 4L), Map.of(), Map.of());
        assertFalse(v.passed());
        assertEquals(2, v.lost());
        assertEquals(2, v.doubleCounted());
        assertEquals(List.of("lost (card a): counted 1 of 3 events answered",
                "double (card b): counted 4, 2 events answered, 0 unanswered"),
                v.findings().stream().map(Object::toString).toList());
    }

    @Test
    void aMetricOffWithEveryIdInPlaceNamesTheCard() {
        ChaosVerdict v = ChaosVerdict.judge(ANSWERED, Map.of("a", 4L, "b", 1L),
                Map.of("a", List.of(1L, 2L, 3L), "b", List.of(4L, 5L)), Map.of());
        assertEquals(List.of("lost (card b): counted 1, 2 events in the stream",
                "double (card a): counted 4, 3 events in the stream"),
                v.findings().stream().map(Object::toString).toList());
        assertEquals(1, v.lost());
        assertEquals(1, v.doubleCounted());
    }
}
