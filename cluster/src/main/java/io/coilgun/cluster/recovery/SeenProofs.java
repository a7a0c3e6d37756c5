package io.coilgun.cluster.recovery;

import java.util.HashSet;
import java.util.PriorityQueue;
import java.util.Set;

/**
 * The proofs of the cluster secret a snapshot server took within the skew window ({@link PeerSecurity#SKEW_MS}),
 * so that each is taken once (issue 58): a proof copied off the wire and sent again within the window is refused.
 * Memory is bounded: a proof is kept until its timestamp leaves the window (a repeat of it is refused as too old
 * from then on, here too: the window's lower edge never moves back, even if the clock does), and at most
 * {@code capacity} are kept. When that many are inside the window, new proofs are refused ({@link Verdict#FULL})
 * rather than a remembered one forgotten: a peer copy then fails and is tried again later.
 */
final class SeenProofs {
    /** About 200 bytes each: 50,000 proofs within five minutes is ten times a large node's recovery, ~10 MB. */
    static final int CAPACITY = 50_000;

    enum Verdict {
        /** Not seen before: taken, and remembered. */
        FIRST,
        /** Seen within the window: a replay. */
        REPEATED,
        /** Older than the window's lower edge. */
        EXPIRED,
        /** {@code capacity} proofs within the window already. */
        FULL
    }

    private record Seen(long at, String head) {
    }

    private final long windowMs;
    private final int capacity;
    private final Set<String> heads = new HashSet<>();
    private final PriorityQueue<Seen> byTime = new PriorityQueue<>((a, b) -> Long.compare(a.at(), b.at()));
    /** The window's lower edge: the largest {@code now - windowMs} seen. */
    private long edge = Long.MIN_VALUE;

    SeenProofs(long windowMs, int capacity) {
        this.windowMs = windowMs;
        this.capacity = capacity;
    }

    /**
     * Takes a proof once: {@code proof} is {@code <millis>.<nonce>.<mac>}, its MAC verified already (so only holders
     * of the secret can fill this); {@code nowMillis} the server's clock.
     */
    synchronized Verdict admit(String proof, long nowMillis) {
        String head = proof.substring(0, proof.lastIndexOf('.'));
        long at = Long.parseLong(head.substring(0, head.indexOf('.')));
        edge = Math.max(edge, nowMillis - windowMs);
        while (!byTime.isEmpty() && byTime.peek().at() < edge) {
            heads.remove(byTime.poll().head());
        }
        if (at < edge) {
            return Verdict.EXPIRED;
        }
        if (heads.contains(head)) {
            return Verdict.REPEATED;
        }
        if (heads.size() >= capacity) {
            return Verdict.FULL;
        }
        heads.add(head);
        byTime.add(new Seen(at, head));
        return Verdict.FIRST;
    }

    /** How many proofs are remembered now. */
    synchronized int size() {
        return heads.size();
    }
}
