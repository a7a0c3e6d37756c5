package io.coilgun.cluster.recovery;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/**
 * The proofs a snapshot server remembers (issue 58): each taken once within the window; kept no longer than the
 * window; never more than the cap, new ones refused rather than a remembered one forgotten.
 */
class SeenProofsTest {
    static final long WINDOW = 300_000;
    static final long T = 1_800_000_000_000L;

    static String proof(long at, String nonce) {
        return at + "." + nonce + ".mac";
    }

    @Test
    void aProofIsTakenOnceWithinTheWindow() {
        SeenProofs seen = new SeenProofs(WINDOW, 100);
        assertEquals(SeenProofs.Verdict.FIRST, seen.admit(proof(T, "a"), T));
        assertEquals(SeenProofs.Verdict.REPEATED, seen.admit(proof(T, "a"), T + 1));
        assertEquals(SeenProofs.Verdict.REPEATED, seen.admit(proof(T, "a") + "-another-mac", T + WINDOW),
                "the MAC is not what makes a proof new");
        assertEquals(SeenProofs.Verdict.FIRST, seen.admit(proof(T, "b"), T));
        assertEquals(SeenProofs.Verdict.FIRST, seen.admit(proof(T + 1, "a"), T), "another time, another proof");
    }

    @Test
    void proofsLeaveAsTheWindowMovesAndTheEdgeNeverMovesBack() {
        SeenProofs seen = new SeenProofs(WINDOW, 100);
        for (int i = 0; i < 10; i++) {
            assertEquals(SeenProofs.Verdict.FIRST, seen.admit(proof(T + i * 1000, "n" + i), T + i * 1000));
        }
        assertEquals(10, seen.size());
        // five minutes and 4.5 s after the first: the first five are beyond the window, forgotten
        assertEquals(SeenProofs.Verdict.FIRST, seen.admit(proof(T + WINDOW, "x"), T + WINDOW + 4_500));
        assertEquals(6, seen.size());
        assertEquals(SeenProofs.Verdict.EXPIRED, seen.admit(proof(T, "n0"), T + WINDOW + 4_500),
                "a forgotten proof is not taken again");
        assertEquals(SeenProofs.Verdict.EXPIRED, seen.admit(proof(T, "n0"), T),
                "nor after the clock went back: the window's edge stays");
        assertEquals(SeenProofs.Verdict.REPEATED, seen.admit(proof(T + 9_000, "n9"), T + WINDOW + 4_500));
        // a proof from ahead of the server's clock stays until its own time leaves the window
        assertEquals(SeenProofs.Verdict.FIRST, seen.admit(proof(T + 2 * WINDOW, "ahead"), T + WINDOW + 4_500));
        assertEquals(SeenProofs.Verdict.REPEATED, seen.admit(proof(T + 2 * WINDOW, "ahead"), T + 3 * WINDOW));
        assertEquals(1, seen.size(), "all the others left");
    }

    @Test
    void whenFullNewProofsAreRefusedUntilOnesLeave() {
        SeenProofs seen = new SeenProofs(WINDOW, 3);
        for (int i = 0; i < 3; i++) {
            assertEquals(SeenProofs.Verdict.FIRST, seen.admit(proof(T + i, "n" + i), T));
        }
        assertEquals(SeenProofs.Verdict.FULL, seen.admit(proof(T, "new"), T));
        assertEquals(SeenProofs.Verdict.REPEATED, seen.admit(proof(T + 1, "n1"), T), "none was forgotten");
        assertEquals(3, seen.size());
        assertEquals(SeenProofs.Verdict.FIRST, seen.admit(proof(T + WINDOW, "new"), T + WINDOW + 1),
                "the first left the window: room for one");
        assertEquals(SeenProofs.Verdict.REPEATED, seen.admit(proof(T + 2, "n2"), T + WINDOW + 1));
    }
}
