package io.coilgun.cluster;

import io.coilgun.cluster.kafka.TopicAdmin;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskState;
import io.coilgun.cluster.unit.ProcessorUnit;
import io.coilgun.planner.model.StreamDef;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * Waits until every task of some streams has taken the records that were in its partition when the wait began (at
 * start-up: the records after its checkpoint), reporting the progress every second.
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
        long nextReport = began + 1000;
        boolean reported = false;
        Map<TaskId, Long> from = new HashMap<>(); // where each task was at the first look
        while (true) {
            Map<TaskId, CompletableFuture<Long>> checks = new LinkedHashMap<>();
            for (TaskId id : ids) {
                ProcessorUnit unit = tasks.unitOf(id);
                long end = ends.getOrDefault(id.topicPartition(), 0L);
                if (unit != null) {
                    CompletableFuture<Long> at = new CompletableFuture<>();
                    // a stopped task (its history lost, say) does not catch up: nothing to wait for
                    unit.submit(u -> at.complete(u.task(id) == null || u.task(id).state() == TaskState.FAILED ? end
                            : Math.min(end, u.task(id).nextOffset())));
                    checks.put(id, at);
                }
            }
            boolean all = true;
            long done = 0;
            long total = 0;
            for (Map.Entry<TaskId, CompletableFuture<Long>> c : checks.entrySet()) {
                long at = c.getValue().join();
                long end = ends.getOrDefault(c.getKey().topicPartition(), 0L);
                long start = from.computeIfAbsent(c.getKey(), k -> at);
                all &= at >= end;
                done += at - start;
                total += Math.max(0, end - start);
            }
            long now = System.currentTimeMillis();
            if (all || now >= nextReport) {
                if (!all || reported) {
                    progress.report(Progress.REPLAY, all ? total : done, total);
                    reported = true;
                }
                nextReport = now + 1000;
            }
            if (all) {
                return true;
            }
            if (System.currentTimeMillis() > deadline) {
                return false;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
