package io.coilgun.cluster;

import io.coilgun.cluster.kafka.TopicAdmin;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskState;
import io.coilgun.cluster.unit.ProcessorUnit;
import io.coilgun.planner.model.StreamDef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.TopicPartition;

/**
 * Waits until every task of some streams has taken the records that were in its partition when the wait began (at
 * start-up: the records after its checkpoint), each on its unit ({@link ProcessorUnit#reached}), reporting the
 * progress every second.
 */
final class ReplayWait {
    private final NodeTasks tasks;
    private final TopicAdmin admin;
    private final Progress progress;

    ReplayWait(NodeTasks tasks, TopicAdmin admin, Progress progress) {
        this.tasks = tasks;
        this.admin = admin;
        this.progress = progress;
    }

    /** True once every task caught up; false when some had not within {@code timeoutMs} (or on an interrupt). */
    boolean await(List<StreamDef> streams, long timeoutMs) {
        List<TaskId> ids = new ArrayList<>();
        for (StreamDef stream : streams) {
            ids.addAll(TaskId.all(stream));
        }
        if (ids.isEmpty()) {
            return true;
        }
        if (!tasks.await(() -> tasks.placed(ids), timeoutMs)) {
            return false;
        }
        Map<TopicPartition, Long> ends = admin.endOffsets(ids.stream().map(TaskId::topicPartition).toList());
        long began = System.currentTimeMillis();
        long deadline = began + timeoutMs;
        Map<TaskId, Long> from = positions(ids, ends); // where each task held here was at the start
        List<CompletableFuture<Long>> reached = new ArrayList<>();
        for (TaskId id : from.keySet()) {
            // a stopped task (its history lost, say) does not catch up: the unit says it reached its end at once
            reached.add(tasks.unitOf(id) == null ? CompletableFuture.completedFuture(0L)
                    : tasks.unitOf(id).reached(id, ends.getOrDefault(id.topicPartition(), 0L)));
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(reached.toArray(CompletableFuture[]::new));
        boolean reported = false;
        while (true) {
            long left = deadline - System.currentTimeMillis();
            try {
                all.get(Math.max(1, Math.min(1000, left)), TimeUnit.MILLISECONDS);
                if (reported) {
                    long total = total(from, ends);
                    progress.report(Progress.REPLAY, total, total);
                }
                return true;
            } catch (TimeoutException e) {
                if (System.currentTimeMillis() >= deadline) {
                    return false;
                }
                long done = 0;
                for (Map.Entry<TaskId, Long> at : positions(ids, ends).entrySet()) {
                    done += Math.max(0, at.getValue() - from.getOrDefault(at.getKey(), at.getValue()));
                }
                progress.report(Progress.REPLAY, done, total(from, ends)); // a second passed: how far it got
                reported = true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (ExecutionException e) {
                throw new IllegalStateException("waiting for the tasks to replay failed", e.getCause());
            }
        }
    }

    /** Where each of {@code ids} held by a unit here is now (its next offset, at most its end), read on its unit. */
    private Map<TaskId, Long> positions(List<TaskId> ids, Map<TopicPartition, Long> ends) {
        Map<TaskId, CompletableFuture<Long>> checks = new LinkedHashMap<>();
        for (TaskId id : ids) {
            ProcessorUnit unit = tasks.unitOf(id);
            long end = ends.getOrDefault(id.topicPartition(), 0L);
            if (unit != null) {
                CompletableFuture<Long> at = new CompletableFuture<>();
                unit.submit(u -> at.complete(u.task(id) == null || u.task(id).state() == TaskState.FAILED ? end
                        : Math.min(end, u.task(id).nextOffset())));
                checks.put(id, at);
            }
        }
        Map<TaskId, Long> positions = new LinkedHashMap<>();
        checks.forEach((id, at) -> positions.put(id, at.join()));
        return positions;
    }

    private static long total(Map<TaskId, Long> from, Map<TopicPartition, Long> ends) {
        long total = 0;
        for (Map.Entry<TaskId, Long> f : from.entrySet()) {
            total += Math.max(0, ends.getOrDefault(f.getKey().topicPartition(), 0L) - f.getValue());
        }
        return total;
    }
}
