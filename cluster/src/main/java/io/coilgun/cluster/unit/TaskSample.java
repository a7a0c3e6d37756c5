package io.coilgun.cluster.unit;

import io.coilgun.cluster.reply.ReplyStatus;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import io.coilgun.storage.reservoir.ReservoirStats;
import io.coilgun.storage.state.StateStore;

/**
 * One task of a node as its unit saw it at one moment: what the node's {@code /metrics} and status page show of it.
 * Taken on the unit's thread ({@link #of}), read anywhere.
 *
 * @param outcomes events answered by the task, by {@link ReplyStatus} ordinal (since it was opened here)
 * @param lagEvents records of its partition not applied yet (-1 unknown)
 * @param lagMs how old the last record it applied was when it applied it, while it lags (0 when caught up)
 * @param changelogRecords its state store's changelog records not materialized yet (the materializer's lag)
 * @param changelogBytes their bytes
 * @param changelogWaitNanos how long its commits waited for the materializer (the changelog at its bound)
 */
public record TaskSample(String task, String stream, String unit, String role, String state, long[] outcomes,
        long lagEvents, long lagMs, long reservoirEvents, int reservoirChunks, long reservoirDiskBytes,
        long reservoirMemoryBytes, long chunkReadsInMemory, long chunkCacheHits, long chunkLoadsWaited,
        long chunkLoadsOnThread, long readAheads, long memtableBytes, long tableReaderBytes, long changelogRecords,
        long changelogBytes, long changelogWaitNanos) {

    /** On {@code unit}'s thread. */
    public static TaskSample of(ProcessorUnit unit, TaskProcessor task) {
        long[] outcomes = new long[ReplyStatus.values().length];
        for (ReplyStatus s : ReplyStatus.values()) {
            outcomes[s.ordinal()] = task.outcomes(s);
        }
        long lag = unit.lag(task.id());
        long lagMs = lag > 0 && task.lastRecordTimestamp() > 0
                ? Math.max(0, System.currentTimeMillis() - task.lastRecordTimestamp()) : 0;
        ReservoirStats r = task.plan().reservoir().stats();
        StateStore store = task.plan().stateStore();
        return new TaskSample(task.id().toString(), task.stream().name(), unit.name(),
                task.role() == TaskRole.ACTIVE ? "active" : "replica", task.state().label(), outcomes, lag, lagMs,
                r.appended, r.chunks, r.writtenBytes, r.openBytes, r.memoryReads, r.cacheHits, r.stalls,
                r.syncLoads, r.readAheads, store.memtableBytes(), store.tableReaderBytes(),
                store.changelogRecordsBehind(), store.changelogBytesBehind(), store.changelogWaitNanos());
    }

    public long outcome(ReplyStatus s) {
        return outcomes[s.ordinal()];
    }

    /** Every event the task answered, whatever the answer. */
    public long events() {
        long n = 0;
        for (long o : outcomes) {
            n += o;
        }
        return n;
    }
}
