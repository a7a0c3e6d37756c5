package io.coilgun.cluster.task;

import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.plan.AcceptedHistory;
import io.coilgun.planner.plan.TaskPlan;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A decider's fills of the partitioners added to its stream ({@code ALTER STREAM … ADD PARTITION BY}): each added
 * partitioner's topic gets, from the decider's reservoir and in the order decided, every event the decider holds,
 * then the live ones. While a partitioner fills, live decisions are not forwarded to it (the fill reaches them in
 * turn, without reply headers).
 *
 * <h2>Going live, the same on every copy</h2>
 * The active copy fills in background slices. Once a pass finds nothing newer than what it forwarded, it writes a
 * {@code filled} marker to its own topic; the marker's offset is where the partitioner goes live, on every copy
 * alike: the active forwards what was decided since its last pass (a few events) and then every decision live, with
 * reply headers; a replica keeps the forwards to it from then on, as for the others. The active's checkpoints wait
 * until Kafka acknowledged its fill's forwards, so a committed offset past the marker means the fill is whole.
 *
 * <p>A copy that takes over (a replica promoted) knows the old active's last committed offset {@code C}: a
 * partitioner that went live at a marker at or before {@code C} is whole; one that went live after it, or was still
 * filling, is filled again from the beginning (its partitioner tasks skip the decisions they have). The new active
 * writes a {@code promoted} marker with its epoch and {@code C}, and each copy does the same when it takes it; a
 * {@code filled} marker counts only when written in the epoch it is taken in (one of an old active, taken after
 * the promotion, is not), except at the new active for markers at or before {@code C}, which the old active
 * honoured. The state (epoch, each partitioner's fill and where it went live) is kept with the decider's checkpoints.
 */
final class PartitionerFills {
    private static final String META = "fills";
    /** A {@code filled} marker not taken back this long after it was written is written again (a lost send). */
    private static final long MARKER_AGAIN_MS = 10_000;

    /** One added partitioner's fill. */
    private static final class Fill {
        final String field;
        /** The offset of the marker where it went live, -1 while it fills. */
        long liveFrom = -1;
        /** The last decision the fill forwarded (-1: none), and its event time. */
        long afterSeq = -1;
        long afterTime = Long.MIN_VALUE;
        long forwarded;
        long began = System.currentTimeMillis();
        /** The pass under way, or null. */
        AcceptedHistory pass;
        /** The number ({@link UnsentForwards#sending}) of its last forward: acknowledged before it reads as done. */
        long lastSent;
        /** When this copy wrote its {@code filled} marker (ms), 0 before: written again if it did not come back. */
        long markerSentAt;

        Fill(String field) {
            this.field = field;
        }

        boolean live() {
            return liveFrom >= 0;
        }
    }

    /** Forwards one decided event of the history to partitioner {@code field}. */
    @FunctionalInterface
    interface FillSender {
        /** Returns the forward's number ({@link UnsentForwards#sending}). */
        long forward(String field, long seq, byte[] payload);
    }

    /** Writes a marker to the decider's own topic. */
    interface Markers {
        void filled(String field, int epoch);

        void promoted(int epoch, long committed);
    }

    private final Map<String, Fill> fills = new LinkedHashMap<>();
    private StreamDef stream;
    /** Bumped by each promotion ({@code promoted} marker); a {@code filled} marker of another epoch is stale. */
    private int epoch;
    /** At the active that took over: the old active's committed offset, up to which its markers were honoured. */
    private long promotedAt = -1;

    /** The fills {@code plan}'s checkpoint kept, for the stream's added partitioners (those not kept: from the start). */
    static PartitionerFills load(TaskPlan plan, StreamDef stream) {
        PartitionerFills f = new PartitionerFills();
        f.stream = stream;
        byte[] kept = plan.meta(META);
        Map<String, String[]> saved = new LinkedHashMap<>();
        if (kept != null) {
            for (String line : new String(kept, StandardCharsets.UTF_8).split("\n")) {
                String[] p = line.split(" ");
                if (p.length == 3 && p[0].equals("epoch")) {
                    f.epoch = Integer.parseInt(p[1]);
                    f.promotedAt = Long.parseLong(p[2]);
                } else if (p.length == 5) {
                    saved.put(p[0], p);
                }
            }
        }
        for (String field : stream.addedPartitionBy()) {
            Fill fill = new Fill(field);
            String[] p = saved.get(field);
            if (p != null) {
                fill.liveFrom = Long.parseLong(p[1]);
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

    /** Whether live decisions go to partitioner {@code field} (one the stream was created with, or filled). */
    boolean live(String field) {
        Fill f = fills.get(field);
        return f == null || f.live();
    }

    /** Whether some added partitioner is still being filled. */
    boolean filling() {
        for (Fill f : fills.values()) {
            if (!f.live()) {
                return true;
            }
        }
        return false;
    }

    /**
     * This copy takes over as the active one; {@code committed} is the old active's last committed offset (-1: none).
     * Returns the partitioners it fills again from the start (their ledger entries are not known any more), after
     * writing its {@code promoted} marker.
     */
    List<String> promoted(long committed, Markers markers) {
        epoch++;
        promotedAt = committed;
        markers.promoted(epoch, committed);
        return restartAfter(committed);
    }

    /**
     * On every copy, the {@code promoted} marker at its offset: the epoch it names, and the partitioners that went
     * live after the old active's commit fill again (at the new active, done when it was promoted). Returns those.
     */
    List<String> promotedMarker(int newEpoch, long committed) {
        if (newEpoch == epoch) {
            return List.of(); // this copy wrote it
        }
        epoch = Math.max(epoch, newEpoch);
        promotedAt = -1;
        return restartAfter(committed);
    }

    private List<String> restartAfter(long committed) {
        List<String> restarted = new ArrayList<>();
        for (Map.Entry<String, Fill> e : fills.entrySet()) {
            Fill f = e.getValue();
            if (!f.live() || f.liveFrom > committed) {
                e.setValue(new Fill(f.field));
                restarted.add(f.field);
            }
        }
        return restarted;
    }

    /**
     * On every copy, the {@code filled} marker of {@code field} written in {@code markerEpoch}, at offset {@code
     * offset}: the partitioner goes live there when the marker counts. The active first forwards what was decided
     * since its last pass ({@code sender}; null on a replica). Returns whether it went live.
     */
    boolean filledMarker(String field, int markerEpoch, long offset, TaskPlan plan, FillSender sender) {
        Fill f = fills.get(field);
        if (f == null || f.live()) {
            return false;
        }
        boolean honouredByOldActive = sender != null && markerEpoch < epoch && offset <= promotedAt;
        if (markerEpoch != epoch && !honouredByOldActive) {
            return false; // written by an active that was replaced before it took it: this copy fills on
        }
        if (sender != null && !honouredByOldActive) {
            AcceptedHistory tail = pass(f, plan);
            if (tail != null) {
                tail.step(Long.MAX_VALUE, (seq, time, schema, payload) -> forwarded(f, sender, seq, time, payload));
            }
        }
        f.pass = null;
        f.liveFrom = offset;
        return true;
    }

    /**
     * On the active copy's thread, between records: forwards history to the partitioners being filled until {@code
     * deadlineNanos}; one whose pass ends with nothing newer decided gets its {@code filled} marker written.
     */
    void step(TaskPlan plan, long deadlineNanos, FillSender sender, Markers markers) {
        for (Fill f : fills.values()) {
            while (!f.live() && System.nanoTime() - deadlineNanos < 0) {
                if (f.pass == null) {
                    f.pass = pass(f, plan);
                    if (f.pass == null) {
                        long now = System.currentTimeMillis();
                        if (now - f.markerSentAt > MARKER_AGAIN_MS) {
                            f.markerSentAt = now; // caught up: it goes live where the marker lands
                            markers.filled(f.field, epoch);
                        }
                        break;
                    }
                }
                if (!f.pass.step(deadlineNanos, (seq, time, schema, payload) -> forwarded(f, sender, seq, time, payload))) {
                    break; // its slice is over, or a chunk is being loaded from disk
                }
                f.pass = null;
            }
        }
    }

    /** A pass over what was decided after the fill's last forward, or null when nothing was. */
    private AcceptedHistory pass(Fill f, TaskPlan plan) {
        AcceptedHistory pass = plan.decisionsAfter(f.afterSeq, f.afterTime == Long.MIN_VALUE ? Long.MIN_VALUE
                : f.afterTime - stream.latenessMicros());
        return pass.untilSeq() <= f.afterSeq ? null : pass;
    }

    private static void forwarded(Fill f, FillSender sender, long seq, long time, byte[] payload) {
        f.lastSent = sender.forward(f.field, seq, payload);
        f.afterSeq = seq;
        f.afterTime = time;
        f.forwarded++;
    }

    /**
     * Whether a partitioner that went live has forwards of its fill Kafka has not acknowledged ({@code
     * acknowledgedThrough}: every one up to that number is): the decider's checkpoint waits for them, so that a
     * committed offset past its marker means the fill is whole.
     */
    boolean liveUnacknowledged(long acknowledgedThrough) {
        for (Fill f : fills.values()) {
            if (f.live() && f.lastSent > acknowledgedThrough) {
                return true;
            }
        }
        return false;
    }

    /** Keeps the fills' state with the decider's next checkpoint, whose retention keeps what they have to read. */
    void keep(TaskPlan plan) {
        long hold = Long.MAX_VALUE;
        StringBuilder b = new StringBuilder();
        b.append("epoch ").append(epoch).append(' ').append(promotedAt).append('\n');
        for (Fill f : fills.values()) {
            if (!f.live()) {
                long from = f.afterTime == Long.MIN_VALUE ? Long.MIN_VALUE : f.afterTime - stream.latenessMicros();
                hold = Math.min(hold, f.pass == null ? from : Math.min(from, f.pass.keepFrom()));
            }
            b.append(f.field).append(' ').append(f.liveFrom).append(' ').append(f.afterSeq).append(' ')
                    .append(f.afterTime).append(' ').append(f.forwarded).append('\n');
        }
        plan.holdHistoryFrom(hold);
        plan.meta(META, b.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The fills under way, each {@code +field:forwarded:total:elapsedMs} (the {@code +} sets them apart from metric
     * backfills); a live one until Kafka acknowledged its last forward ({@code acknowledgedThrough}: every forward up
     * to that number is), then {@code =field}.
     */
    List<String> progress(long acknowledgedThrough) {
        List<String> out = new ArrayList<>();
        long now = System.currentTimeMillis();
        for (Fill f : fills.values()) {
            if (!f.live() || f.lastSent > acknowledgedThrough) {
                long total = f.live() ? f.forwarded : f.forwarded + (f.pass == null ? 0 : f.pass.estimatedEvents());
                out.add("+" + f.field + ":" + f.forwarded + ":" + Math.max(total, f.forwarded) + ":"
                        + (now - f.began));
            } else {
                out.add("=" + f.field); // said, so that a report from before the partitioner existed reads unknown
            }
        }
        return out;
    }
}
