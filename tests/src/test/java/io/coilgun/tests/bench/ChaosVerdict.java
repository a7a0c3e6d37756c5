package io.coilgun.tests.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The verdict of a chaos run (issue 58), event by event: it passes only when nothing the clients were answered was
 * lost, nothing was counted twice, and every statement was answered. From what the clients saw (the ids answered as
 * accepted per card, the events whose statement was never answered) and what the cluster holds (each card's count
 * of the oracle's metric, and, for the cards worth a closer look, the ids the stream holds), it names each event:
 * {@code lost} (answered, not in the stream), {@code double} (in the stream twice, or counted beyond what was
 * applied), {@code unanswered} (its statement never answered, applied or not). Where the stream was not read for a
 * card, or a count differs with every id in place (a metric's fault, not the stream's), the card is named with its
 * numbers.
 */
final class ChaosVerdict {
    /** One event (or, with {@code id} -1, one card's count) that fails the run. */
    record Finding(String kind, long id, String card, String detail) {
        @Override
        public String toString() {
            return kind + " " + (id < 0 ? "" : "event " + id + " ") + "(card " + card + ")" + (detail.isEmpty() ? ""
                    : ": " + detail);
        }
    }

    private final List<Finding> findings;
    private final long lost;
    private final long doubled;
    private final long unanswered;

    private ChaosVerdict(List<Finding> findings, long lost, long doubled, long unanswered) {
        this.findings = findings;
        this.lost = lost;
        this.doubled = doubled;
        this.unanswered = unanswered;
    }

    /**
     * @param answered per card, the ids the clients were answered as accepted
     * @param counted per card, the oracle metric's count read back
     * @param stored per card, the ids the stream holds (with repeats), for the cards read; others absent
     * @param unansweredCards the events whose statement was never answered: id to card
     */
    static ChaosVerdict judge(Map<String, ? extends Collection<Long>> answered, Map<String, Long> counted,
            Map<String, ? extends Collection<Long>> stored, Map<Long, String> unansweredCards) {
        List<Finding> findings = new ArrayList<>();
        Map<String, Set<Long>> unansweredByCard = new HashMap<>();
        unansweredCards.forEach((id, card) -> unansweredByCard.computeIfAbsent(card, k -> new HashSet<>()).add(id));
        Set<String> cards = new TreeSet<>(answered.keySet());
        cards.addAll(counted.keySet());
        long lost = 0;
        long doubled = 0;
        for (String card : cards) {
            Set<Long> ok = answered.containsKey(card) ? new HashSet<>(answered.get(card)) : Set.of();
            Set<Long> open = unansweredByCard.getOrDefault(card, Set.of());
            long got = counted.getOrDefault(card, 0L);
            Collection<Long> held = stored.get(card);
            long cardLost;
            long cardDoubled;
            if (held == null) {
                // not read: by the count alone (an unanswered event may have been applied: not a double count)
                cardLost = Math.max(0, ok.size() - got);
                cardDoubled = Math.max(0, got - ok.size() - open.size());
                if (cardLost > 0) {
                    findings.add(new Finding("lost", -1, card, "counted " + got + " of " + ok.size()
                            + " events answered"));
                }
                if (cardDoubled > 0) {
                    findings.add(new Finding("double", -1, card, "counted " + got + ", " + ok.size()
                            + " events answered, " + open.size() + " unanswered"));
                }
            } else {
                Map<Long, Integer> times = new HashMap<>();
                held.forEach(id -> times.merge(id, 1, Integer::sum));
                cardLost = 0;
                cardDoubled = 0;
                for (long id : new TreeSet<>(ok)) {
                    if (!times.containsKey(id)) {
                        findings.add(new Finding("lost", id, card, "answered as accepted, not in the stream"));
                        cardLost++;
                    }
                }
                long applied = 0; // distinct ids held, answered or not
                for (var e : new java.util.TreeMap<>(times).entrySet()) {
                    applied++;
                    if (e.getValue() > 1) {
                        findings.add(new Finding("double", e.getKey(), card, "in the stream " + e.getValue()
                                + " times"));
                        cardDoubled += e.getValue() - 1;
                    } else if (!ok.contains(e.getKey()) && !open.contains(e.getKey())) {
                        findings.add(new Finding("double", e.getKey(), card, "in the stream, never sent"));
                        cardDoubled++;
                    }
                }
                // the metric against what the stream holds: a count off with every id in place
                long heldTotal = held.size();
                if (got < applied && cardLost == 0) {
                    findings.add(new Finding("lost", -1, card, "counted " + got + ", " + applied
                            + " events in the stream"));
                    cardLost = applied - got;
                } else if (got > heldTotal) {
                    findings.add(new Finding("double", -1, card, "counted " + got + ", " + heldTotal
                            + " events in the stream"));
                    cardDoubled += got - heldTotal;
                }
            }
            lost += cardLost;
            doubled += cardDoubled;
            for (long id : new TreeSet<>(open)) {
                String applied = held == null ? "" : held.contains(id) ? "never answered, applied"
                        : "never answered, not applied";
                findings.add(new Finding("unanswered", id, card, applied));
            }
        }
        return new ChaosVerdict(findings, lost, doubled, unansweredCards.size());
    }

    boolean passed() {
        return lost == 0 && doubled == 0 && unanswered == 0;
    }

    long lost() {
        return lost;
    }

    long doubleCounted() {
        return doubled;
    }

    long unanswered() {
        return unanswered;
    }

    /** Every event (or card) that fails the run, lost first, then double, then unanswered. */
    List<Finding> findings() {
        List<Finding> sorted = new ArrayList<>(findings);
        List<String> order = List.of("lost", "double", "unanswered");
        sorted.sort(java.util.Comparator.comparingInt((Finding f) -> order.indexOf(f.kind())));
        return sorted;
    }

    /** The cards worth reading the stream's ids of: a count that differs, or an unanswered event. */
    static Set<String> suspects(Map<String, ? extends Collection<Long>> answered, Map<String, Long> counted,
            Map<Long, String> unansweredCards) {
        Set<String> cards = new TreeSet<>(unansweredCards.values());
        Set<String> all = new HashSet<>(answered.keySet());
        all.addAll(counted.keySet());
        for (String card : all) {
            if (counted.getOrDefault(card, 0L) != (answered.containsKey(card) ? answered.get(card).size() : 0)) {
                cards.add(card);
            }
        }
        return cards;
    }
}
