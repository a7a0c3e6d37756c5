package io.coilgun.cluster.task;

import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.plan.TaskPlan;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a metric starts on a task: at its start marker, a record of the task's partition with header
 * {@link KafkaHeaders#START_METRIC} ({@code name@version}). The metric starts right after the marker on the active
 * and on every replica alike (each takes the same record), so a promoted replica's values are the active's: empty,
 * or filled from history first (a backfill, CREATE METRIC … WITH (backfill)), which the task runs in slices until it
 * catches up. Also when each backfill under way here began, for its progress. Only the task's unit thread calls it.
 */
final class MetricStarts {
    private static final Logger LOG = LoggerFactory.getLogger(MetricStarts.class);

    private final TaskId id;
    /** The metric a start marker starts, or null when it starts none here. */
    private Function<String, MetricDef> definitions = marker -> null;
    /** When each backfill under way here began (wall clock, ms), for its ETA. */
    private final Map<String, Long> backfillStartedAt = new HashMap<>(0);

    MetricStarts(TaskId id) {
        this.id = id;
    }

    /** Where the task finds the metric a start marker starts (null: none here). */
    void definitions(Function<String, MetricDef> lookup) {
        this.definitions = lookup;
    }

    /** The metric start marker {@code marker} starts, or null when it starts none here. */
    MetricDef definition(String marker) {
        return definitions.apply(marker);
    }

    /**
     * Takes start marker {@code marker} at {@code offset} into {@code plan}: the record is skipped, metric
     * {@code def} ({@link #definition}) starts (unless it runs or fills already: a marker taken again changes
     * nothing), and the plan is checkpointed at once. Returns whether the plan's live metrics changed.
     */
    boolean start(TaskPlan plan, long offset, String marker, MetricDef def) {
        String name = marker.lastIndexOf('@') < 0 ? marker : marker.substring(0, marker.lastIndexOf('@'));
        boolean changed = false;
        plan.skip(offset);
        if (def != null && plan.operator(name) == null && !plan.backfilling(name)) {
            if (def.backfills()) {
                long began = System.nanoTime();
                plan.startBackfill(def);
                backfillStartedAt.put(name, System.currentTimeMillis());
                LOG.info("task={} metric={} starts after offset {}, filled from history first (begun in {} ms)", id,
                        name, offset, (System.nanoTime() - began) / 1_000_000);
            } else {
                plan.addNewMetric(def);
                changed = true;
                LOG.info("task={} metric={} starts after offset {}", id, name, offset);
            }
        } else if (def == null) {
            LOG.info("task={} offset={} start marker {} starts nothing here (a metric dropped since, or an earlier one "
                    + "of that name)", id, offset, marker);
        }
        plan.checkpoint();
        return changed;
    }

    /** The backfill of {@code metric} caught up: when it began here (wall clock, ms), or null when unknown. */
    Long filled(String metric) {
        return backfillStartedAt.remove(metric);
    }

    /**
     * The backfills under way in {@code plan}, each {@code metric:applied:total:elapsedMs} (how long it has run
     * here; one resumed after a reopen counts from now).
     */
    List<String> progress(TaskPlan plan) {
        long now = System.currentTimeMillis();
        List<String> out = new ArrayList<>();
        for (TaskPlan.BackfillProgress p : plan.backfillProgress()) {
            Long began = backfillStartedAt.computeIfAbsent(p.metric(), m -> now);
            out.add(p.metric() + ":" + p.applied() + ":" + p.total() + ":" + Math.max(0, now - began));
        }
        return out;
    }
}
