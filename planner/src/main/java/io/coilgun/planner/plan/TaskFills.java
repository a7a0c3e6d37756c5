package io.coilgun.planner.plan;

import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.window.MetricRows;
import io.coilgun.planner.window.WindowMetric;
import io.coilgun.storage.reservoir.Reservoir;
import io.coilgun.storage.reservoir.ReservoirIO;
import io.coilgun.storage.state.StateStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A task's background reads of its own history: the metrics being filled from it ({@code CREATE METRIC … WITH
 * (backfill = …)}, {@link MetricBackfill}), which become the task's operators once caught up, and the REPLAYs reading
 * it ({@link MetricReplay}). Owned by its {@link TaskPlan}, on the task's thread.
 */
final class TaskFills {
    private final TaskPlan plan;
    private final StateStore store;
    private final Reservoir reservoir;
    /** The task's directory (backfills keep a scratch reservoir under it) and the node's reservoir I/O. */
    private final Path dir;
    private final ReservoirIO io;
    private final List<MetricBackfill> backfills = new ArrayList<>(0);
    private final List<MetricReplay> replays = new ArrayList<>(0);

    TaskFills(TaskPlan plan, StateStore store, Reservoir reservoir, Path dir, ReservoirIO io) {
        this.plan = plan;
        this.store = store;
        this.reservoir = reservoir;
        this.dir = dir;
        this.io = io;
    }

    /** Starts filling {@code metric} from {@code start} (its span), after clearing any rows of it. */
    void start(MetricDef metric, StreamDef stream, MetricRows.Backfill start) {
        MetricRows.clear(store, metric.name());
        MetricRows.backfill(store, metric.name(), start);
        backfills.add(new MetricBackfill(metric, stream, start, store, reservoir, reservoir.lastSeq(),
                scratchDir(metric.name()), io));
    }

    private Path scratchDir(String metric) {
        Path scratch = dir.resolve("backfill").resolve(metric);
        MetricBackfill.deleteTree(scratch);
        return scratch;
    }

    /** Deletes the scratch data of backfills and replays a crash interrupted. */
    void deleteScratch() {
        MetricBackfill.deleteTree(dir.resolve("backfill"));
        MetricBackfill.deleteTree(dir.resolve("replay"));
    }

    MetricBackfill backfill(String name) {
        for (MetricBackfill b : backfills) {
            if (b.def().name().equals(name)) {
                return b;
            }
        }
        return null;
    }

    /** Drops the fill of metric {@code name}; false when there is none. */
    boolean drop(String name) {
        MetricBackfill b = backfill(name);
        if (b == null) {
            return false;
        }
        backfills.remove(b);
        b.close();
        return true;
    }

    boolean filling() {
        return !backfills.isEmpty();
    }

    boolean hasWork() {
        if (!backfills.isEmpty()) {
            return true;
        }
        for (int i = 0; i < replays.size(); i++) {
            if (replays.get(i).wantsWork()) {
                return true;
            }
        }
        return false;
    }

    MetricReplay replay(MetricDef metric, StreamDef stream, long from, long to, String id) {
        MetricReplay r = new MetricReplay(metric, stream, reservoir, from, to, dir.resolve("replay").resolve(id), io);
        replays.add(r);
        return r;
    }

    List<TaskPlan.BackfillProgress> progress() {
        List<TaskPlan.BackfillProgress> out = new ArrayList<>(backfills.size());
        for (MetricBackfill b : backfills) {
            out.add(new TaskPlan.BackfillProgress(b.def().name(), b.applied(), b.total()));
        }
        return out;
    }

    List<MetricDef> metrics() {
        return backfills.stream().map(MetricBackfill::def).toList();
    }

    /** The stream's next schema version, for every fill. */
    void streamChanged(StreamDef altered) {
        for (MetricBackfill b : backfills) {
            b.streamChanged(altered);
        }
    }

    /** A live event the task just accepted: the fills apply it after their history. */
    void arrived(long time, long seq, int schema, byte[] payload) {
        for (int i = 0; i < backfills.size(); i++) {
            backfills.get(i).arrived(time, seq, schema, payload);
        }
    }

    /** The oldest event time a fill or replay has still to read from the reservoir. */
    long keepFrom(long keepFrom) {
        for (MetricBackfill b : backfills) {
            keepFrom = Math.min(keepFrom, b.keepFrom());
        }
        for (MetricReplay r : replays) {
            keepFrom = Math.min(keepFrom, r.keepFrom());
        }
        return keepFrom;
    }

    /** See {@link TaskPlan#backfillStep}. */
    List<MetricDef> step(long deadlineNanos, StreamDef stream) {
        for (int i = 0; i < replays.size(); i++) {
            MetricReplay r = replays.get(i);
            if (r.wantsWork()) {
                r.step(deadlineNanos);
            }
            if (r.over()) {
                replays.remove(i--);
            }
        }
        List<MetricDef> live = null;
        for (int i = 0; i < backfills.size(); i++) {
            MetricBackfill b = backfills.get(i);
            MetricBackfill.Step step = b.step(deadlineNanos);
            if (step == MetricBackfill.Step.WRITING) {
                plan.checkpoint(); // some of the group states it held back: in the background's time, not an event's
                continue;
            }
            if (step == MetricBackfill.Step.APPLYING) {
                continue;
            }
            if (b.streamTime() != plan.streamTime() && b.applied() > 0) {
                // its windows' positions would not be the task's: never make such a metric live
                throw new IllegalStateException("the backfill of metric " + b.def().name() + " caught up at stream "
                        + "time " + b.streamTime() + ", the task's is " + plan.streamTime());
            }
            b.releaseAllRows();
            plan.checkpoint(); // the fill's rows, with the task's offset: a crash from here on reopens them as they are
            WindowMetric metric = b.goLive(stream, store, reservoir, plan.shared()); // its group states, as they are
            b.close();
            backfills.remove(i--);
            MetricRows.backfillDone(store, b.def().name());
            plan.addLive(metric);
            plan.checkpoint(); // the metric's start, with the span it counts: it is live in this store
            if (live == null) {
                live = new ArrayList<>(1);
            }
            live.add(b.def());
        }
        return live == null ? List.of() : live;
    }

    void close() {
        for (MetricReplay r : replays) {
            r.abandon("its task closed (it moved to another node, failed, or its stream was dropped)");
        }
        replays.clear();
        for (MetricBackfill b : backfills) {
            try {
                b.close();
            } catch (RuntimeException e) {
                // closing the rest anyway
            }
        }
        backfills.clear();
    }
}
