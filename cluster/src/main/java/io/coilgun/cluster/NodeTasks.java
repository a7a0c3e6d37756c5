package io.coilgun.cluster;

import io.coilgun.cluster.assign.ClusterView;
import io.coilgun.cluster.query.TaskRouter;
import io.coilgun.cluster.sync.Changes;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskState;
import io.coilgun.cluster.unit.ProcessorUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Which of this node's processor units holds each task (active or replica: one unit at a time), and the cluster's
 * placement as of the latest rebalance; how to run something on a task's unit thread, between two events. Waiters
 * ({@link #await}) are woken when the placement changes or a unit takes or lets go of a task.
 */
final class NodeTasks implements TaskRouter, TaskPositions {
    private final String nodeId;
    private final List<ProcessorUnit> units = new ArrayList<>();
    private final Map<TaskId, ProcessorUnit> holders = new ConcurrentHashMap<>();
    private final Changes changes = new Changes();
    /** The placement of the latest rebalance. */
    private volatile ClusterView view = ClusterView.EMPTY;

    NodeTasks(String nodeId) {
        this.nodeId = nodeId;
    }

    /** Adds a started unit (at the node's start, before any task opens). */
    void addUnit(ProcessorUnit unit) {
        units.add(unit);
    }

    List<ProcessorUnit> units() {
        return units;
    }

    @Override
    public String nodeId() {
        return nodeId;
    }

    /** The placement of the latest rebalance: which unit of which node leads each task and which replicate it. */
    ClusterView view() {
        return view;
    }

    /** A unit received a placement: kept when it is not older than the one known. */
    void placed(ClusterView placement) {
        synchronized (this) {
            if (placement.generation() >= view.generation()) {
                view = placement;
            }
        }
        changes.signal();
    }

    @Override
    public String activeNodeOf(TaskId id) {
        ClusterView.Member m = view.activeOf(id);
        return m == null ? null : m.node();
    }

    /** The nodes holding a replica of task {@code id} in the latest placement. */
    List<String> replicaNodesOf(TaskId id) {
        return view.replicasOf(id).stream().map(ClusterView.Member::node).toList();
    }

    /** The other nodes of the latest placement. */
    List<String> otherNodes() {
        return view.nodes().stream().filter(n -> !n.equals(nodeId)).toList();
    }

    /**
     * {@code unit} takes task {@code id}: at once when no unit holds it, else false (another unit of this node still
     * holds it, and lets go of it in its own rebalance callback; or {@code unit} itself still has an earlier copy of
     * it open, which it closes on its thread: one store is opened once).
     */
    boolean tryHold(TaskId id, ProcessorUnit unit) {
        ProcessorUnit before = holders.putIfAbsent(id, unit);
        if (before == null) {
            changes.signal();
        }
        return before == null;
    }

    /** {@code unit} no longer holds task {@code id} (if it did). */
    void release(TaskId id, ProcessorUnit unit) {
        if (holders.remove(id, unit)) {
            changes.signal();
        }
    }

    boolean holds(TaskId id) {
        return holders.containsKey(id);
    }

    /** The unit of this node holding task {@code id}, or null. */
    ProcessorUnit unitOf(TaskId id) {
        return holders.get(id);
    }

    /**
     * Waits until {@code condition} holds, looking again whenever the placement changes or a unit takes or lets go
     * of a task; false after {@code timeoutMs}.
     */
    boolean await(BooleanSupplier condition, long timeoutMs) {
        return changes.await(condition, timeoutMs);
    }

    /** Wakes the waiters to look again (something their condition reads changed elsewhere). */
    void signal() {
        changes.signal();
    }

    /** Whether every one of {@code tasks} has an active unit in the placement, and those led here are open here. */
    boolean placed(List<TaskId> tasks) {
        ClusterView v = view;
        return tasks.stream().allMatch(t -> v.activeOf(t) != null
                && (!v.activeOf(t).node().equals(nodeId) || holders.containsKey(t)));
    }

    @Override
    public boolean awaitPlaced(List<TaskId> ids, long timeoutMs) {
        return await(() -> placed(ids), timeoutMs);
    }

    @Override
    public CompletableFuture<Long> reached(TaskId id, long offset) {
        ProcessorUnit unit = holders.get(id);
        return unit == null ? null : unit.reached(id, offset);
    }

    @Override
    public CompletableFuture<Long> position(TaskId id, long end) {
        ProcessorUnit unit = holders.get(id);
        if (unit == null) {
            return null;
        }
        CompletableFuture<Long> at = new CompletableFuture<>();
        unit.submit(u -> {
            TaskProcessor task = u.task(id);
            at.complete(task == null || task.state() == TaskState.FAILED ? end : Math.min(end, task.nextOffset()));
        }).whenComplete((v, e) -> {
            if (e != null) {
                at.completeExceptionally(e);
            }
        });
        return at;
    }

    @Override
    public <T> CompletableFuture<T> onTask(TaskId id, Function<TaskProcessor, T> read) {
        ProcessorUnit unit = holders.get(id);
        if (unit == null) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        unit.submit(u -> {
            TaskProcessor task = u.task(id);
            result.complete(task == null ? null : read.apply(task));
        }).whenComplete((v, e) -> {
            if (e != null) {
                result.completeExceptionally(e);
            }
        });
        return result;
    }

    /** Runs {@code command} for each of {@code tasks} held here, on its unit's thread; blocking until all ran. */
    void onTasks(List<TaskId> tasks, BiConsumer<ProcessorUnit, TaskId> command) {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (TaskId id : tasks) {
            ProcessorUnit unit = holders.get(id);
            if (unit != null) {
                done.add(unit.submit(u -> command.accept(u, id)));
            }
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
    }

    /** Runs {@code command} on every unit's thread; blocking until each ran. */
    void onUnits(Consumer<ProcessorUnit> command) {
        CompletableFuture.allOf(units.stream().map(u -> u.submit(command)).toArray(CompletableFuture[]::new)).join();
    }

    /**
     * Reads every task held here, each on its unit's thread: one row per task, in no particular order. A unit that
     * does not answer (stopped) is left out.
     */
    <T> CompletableFuture<List<T>> eachTask(BiFunction<ProcessorUnit, TaskProcessor, T> read) {
        List<CompletableFuture<List<T>>> parts = new ArrayList<>();
        for (ProcessorUnit unit : units) {
            CompletableFuture<List<T>> part = new CompletableFuture<>();
            unit.submit(u -> {
                List<T> rows = new ArrayList<>();
                for (TaskProcessor task : u.tasks()) {
                    rows.add(read.apply(u, task));
                }
                part.complete(rows);
            }).whenComplete((v, e) -> {
                if (e != null) {
                    part.complete(List.of());
                }
            });
            parts.add(part);
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).thenApply(v -> {
            List<T> all = new ArrayList<>();
            for (CompletableFuture<List<T>> part : parts) {
                all.addAll(part.join());
            }
            return all;
        });
    }
}
