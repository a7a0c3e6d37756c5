package io.coilgun.cluster.task;

import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.DecisionHistory;
import io.coilgun.planner.plan.TaskPlan;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A decider's fills of the partitioners added to its stream ({@code ALTER STREAM … ADD PARTITION BY}): each added
 * partitioner's topic gets, from the decider's reservoir and in the order decided, every event the decider still
 * holds, then the live ones. While a partitioner fills, live decisions are not forwarded to it (the fill reaches
 * them in turn); once a pass of the fill finds nothing newer than what it forwarded, the decider forwards to it live
 * from its next decision on, with the publisher's reply headers (its tasks answer statements from then on).
 *
 * <p>Only the active copy fills: a replica never forwards to an added partitioner, and a copy that becomes active
 * ({@link #restart}) fills every added partitioner again from the beginning, its partitioner tasks skipping what they
 * applied (a decision not above their last). It cannot know how far the old active got, nor which of its forwards
 * Kafka has. The state (each partitioner's last decision forwarded by the fill, or live) is kept with the decider's
 * checkpoints, so a decider reopened on its own node goes on where its checkpoint was.
 */
final class PartitionerFills {
    private static final String META = "fills";

    /** One added partitioner's fill. */
    private static final class Fill {
        final String field;
        boolean live;
        /** The last decision the fill forwarded (-1: none), and its event time. */
        long afterSeq = -1;
        long afterTime = Long.MIN_VALUE;
        long forwarded;
        long began = System.currentTimeMillis();
        /** The pass under way, or null. */
        DecisionHistory pass;
        /** The number ({@link UnsentForwards#sending}) of its last forward: acknowledged before it reads as done. */
        long lastSent;

        Fill(String field) {
            this.field = field;
        }
    }

    /** Forwards one decided event of the history to partitioner {@code field}. */
    @FunctionalInterface
    interface FillSender {
        /** Returns the forward's number ({@link UnsentForwards#sending}). */
        long forward(String field, long seq, byte[] payload);
    }

    private final Map<String, Fill> fills = new LinkedHashMap<>();
    private StreamDef stream;

    /** The fills {@code plan}'s checkpoint kept, for the stream's added partitioners (those not kept: from the start). */
    static PartitionerFills load(TaskPlan plan, StreamDef stream) {
        PartitionerFills f = new PartitionerFills();
        f.stream = stream;
        byte[] kept = plan.meta(META);
        Map<String, String[]> saved = new LinkedHashMap<>();
        if (kept != null) {
            for (String line : new String(kept, StandardCharsets.UTF_8).split("\n")) {
                String[] p = line.split(" ");
                if (p.length == 5) {
                    saved.put(p[0], p);
                }
            }
        }
        for (String field : stream.addedPartitionBy()) {
            Fill fill = new Fill(field);
            String[] p = saved.get(field);
            if (p != null) {
                fill.live = p[1].equals("live");
                fill.afterSeq = Long.parseLong(p[2]);
                fill.afterTime = Long.parseLong(p[3]);
                fill.forwarded = Long.parseLong(p[4]);
            }
            f.fills.put(field, fill);
        }
        return f;
    }

    /** The stream changed (a partitioner added or dropped): a new one fills from the start. */
    void streamChanged(StreamDef altered) {
        stream = altered;
        fills.keySet().retainAll(altered.addedPartitionBy());
        for (String field : altered.addedPartitionBy()) {
            fills.computeIfAbsent(field, Fill::new);
        }
    }

    /** The added partitioners. */
    List<String> fields() {
        return List.copyOf(fills.keySet());
    }

    /** Every added partitioner fills again from the beginning (this copy becomes active, or stops being it). */
    void restart() {
        fills.replaceAll((field, old) -> new Fill(field));
    }

    /** Whether live decisions go to partitioner {@code field} (one the stream was created with, or filled). */
    boolean live(String field) {
        Fill f = fills.get(field);
        return f == null || f.live;
    }

    /** Whether {@code field} is a partitioner the stream was created with (not added since). */
    boolean created(String field) {
        return !fills.containsKey(field);
    }

    /** Whether some added partitioner is still being filled. */
    boolean filling() {
        for (Fill f : fills.values()) {
            if (!f.live) {
                return true;
            }
        }
        return false;
    }

    /**
     * On the active copy's thread, between records: forwards history to the partitioners being filled until {@code
     * deadlineNanos}; a fill whose pass ends with nothing newer decided goes live. Returns those that did (each
     * described for the log).
     */
    List<String> step(TaskPlan plan, long deadlineNanos, FillSender sender) {
        List<String> wentLive = List.of();
        for (Fill f : fills.values()) {
            while (!f.live && System.nanoTime() - deadlineNanos < 0) {
                if (f.pass == null) {
                    f.pass = plan.decisionsAfter(f.afterSeq, f.afterTime == Long.MIN_VALUE ? Long.MIN_VALUE
                            : f.afterTime - stream.latenessMicros());
                    if (f.pass.untilSeq() <= f.afterSeq) {
                        f.pass = null;
                        f.live = true; // nothing decided since its last forward: the next decision goes live
                        wentLive = new ArrayList<>(wentLive);
                        wentLive.add(f.field + " (" + f.forwarded + " events in "
                                + (System.currentTimeMillis() - f.began) + " ms, live after decision " + f.afterSeq
                                + ")");
                        break;
                    }
                }
                if (!f.pass.step(deadlineNanos, (seq, time, payload) -> {
                    f.lastSent = sender.forward(f.field, seq, payload);
                    f.afterSeq = seq;
                    f.afterTime = time;
                    f.forwarded++;
                })) {
                    break; // its slice is over, or a chunk is being loaded from disk
                }
                f.pass = null;
            }
        }
        return wentLive;
    }

    /** Keeps the fills' state with the decider's next checkpoint, whose retention keeps what they have to read. */
    void keep(TaskPlan plan) {
        long hold = Long.MAX_VALUE;
        for (Fill f : fills.values()) {
            if (!f.live) {
                long from = f.afterTime == Long.MIN_VALUE ? Long.MIN_VALUE : f.afterTime - stream.latenessMicros();
                hold = Math.min(hold, f.pass == null ? from : Math.min(from, f.pass.keepFrom()));
            }
        }
        plan.holdHistoryFrom(hold);
        StringBuilder b = new StringBuilder();
        for (Fill f : fills.values()) {
            b.append(f.field).append(' ').append(f.live ? "live" : "filling").append(' ').append(f.afterSeq)
                    .append(' ').append(f.afterTime).append(' ').append(f.forwarded).append('\n');
        }
        plan.meta(META, b.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The fills under way, each {@code +field:forwarded:total:elapsedMs} (the {@code +} sets them apart from metric
     * backfills), a live one until Kafka acknowledged its last forward ({@code acknowledgedThrough}: every forward up
     * to that number is).
     */
    List<String> progress(long acknowledgedThrough) {
        List<String> out = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (Fill f : fills.values()) {
            if (!f.live || f.lastSent > acknowledgedThrough) {
                long total = f.live ? f.forwarded : f.forwarded + (f.pass == null ? 0 : f.pass.estimatedEvents());
                out.add("+" + f.field + ":" + f.forwarded + ":" + Math.max(total, f.forwarded) + ":"
                        + (now - f.began));
            }
        }
        return out;
    }
}
