package io.coilgun.cluster.unit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BackgroundBudgetTest {
    static final long MS = 1_000_000L;

    @Test
    void aSliceIsFollowedByTheRestOfItsShare() {
        try (BackgroundBudget b = new BackgroundBudget(0.25, 0.05, 2)) {
            b.ran(0, 2 * MS);
            assertEquals(2 * MS + 6 * MS, b.notBefore(), "2 ms at a quarter: 6 ms left to live work");
        }
    }

    @Test
    void aBusyMachineLeavesBackgroundWorkLessButNeverNone() {
        try (BackgroundBudget b = new BackgroundBudget(0.25, 0.05, 2)) {
            b.observe(0.95);
            assertFalse(b.busy(), "a threshold over 1: never busy");
        }
        try (BackgroundBudget b = new BackgroundBudget(0.25, 0.05, 0.8)) {
            b.observe(0.79);
            assertFalse(b.busy());
            b.ran(0, 2 * MS);
            assertEquals(8 * MS, b.notBefore());
            b.observe(0.93);
            assertTrue(b.busy());
            b.ran(10 * MS, 12 * MS);
            assertEquals(12 * MS + 38 * MS, b.notBefore(), "2 ms at 5%: 38 ms left");
            b.observe(-1); // unknown: as idle
            assertFalse(b.busy());
        }
    }

    @Test
    void aDeferralOnlyMovesTheNextSliceLater() {
        try (BackgroundBudget b = new BackgroundBudget(0.5, 0.05, 2)) {
            b.ran(0, 4 * MS);
            b.deferTo(2 * MS);
            assertEquals(8 * MS, b.notBefore());
            b.deferTo(20 * MS);
            assertEquals(20 * MS, b.notBefore());
        }
    }
}
