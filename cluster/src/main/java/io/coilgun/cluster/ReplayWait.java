package io.coilgun.cluster;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.planner.model.StreamDef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.apache.kafka.common.TopicPartition;

/**
 * Waits until every task of some streams has taken the records that were in its partition when the wait began (at
 * start-up: the records after its checkpoint), each on its unit ({@code ProcessorUnit.reached}), reporting the
 * progress every second.
 */
final class ReplayWait {
    private final TaskPositions tasks;
    private final Function<List<TopicPartition>, Map<TopicPartition, Long>> endOffsets;
    private final Progress progress;

    /** @param endOffsets the partitions' end offsets now (Kafka's admin) */
    ReplayWait(TaskPositions tasks, Function<List<TopicPartition>, Map<TopicPartition, Long>> endOffsets,
            Progress progress) {
        this.tasks = tasks;
        this.endOffsets = endOffsets;
        this.progress = progress;
    }

    /** True once every task caught up; false when some had not within {@code timeoutMs} (or on an interrupt). */
    boolean await(List<StreamDef> streams, long timeoutMs) {
        List<TaskId> ids = new ArrayList<>();
        for (StreamDef stream : streams) {
            ids.addAll(TaskId.all(stream));
        }
        return awaitTasks(ids, timeoutMs);
    }

    boolean awaitTasks(List<TaskId> ids, long timeoutMs) {
        if (ids.isEmpty()) {
            return true;
        }
        if (!tasks.awaitPlaced(ids, timeoutMs)) {
            return false;
        }
        Map<TopicPartition, Long> ends = endOffsets.apply(ids.stream().map(TaskId::topicPartition).toList());
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        Map<TaskId, Long> from = positions(ids, ends); // where each task held here was at the start
        List<CompletableFuture<Long>> reached = new ArrayList<>();
        for (TaskId id : from.keySet()) {
            // a stopped task (its history lost, say) does not catch up: its unit says it reached its end at once
            CompletableFuture<Long> r = tasks.reached(id, ends.getOrDefault(id.topicPartition(), 0L));
            reached.add(r == null ? CompletableFuture.completedFuture(0L) : r);
        }
        CompletableFuture<Void> all = CompletableFuture.allOf(reached.toArray(CompletableFuture[]::new));
        boolean reported = false;
        while (true) {
            long leftNanos = Math.max(0, deadline - System.nanoTime());
            try {
                all.get(Math.min(1_000_000_000L, leftNanos), TimeUnit.NANOSECONDS);
                if (reported) {
                    long total = total(from, ends);
                    progress.report(Progress.REPLAY, total, total);
                }
                return true;
            } catch (TimeoutException e) {
                if (System.nanoTime() - deadline >= 0) {
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

    /** Where each of {@code ids} held here is now (its next offset, at most its end). */
    private Map<TaskId, Long> positions(List<TaskId> ids, Map<TopicPartition, Long> ends) {
        Map<TaskId, CompletableFuture<Long>> checks = new LinkedHashMap<>();
        for (TaskId id : ids) {
            CompletableFuture<Long> at = tasks.position(id, ends.getOrDefault(id.topicPartition(), 0L));
            if (at != null) {
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
