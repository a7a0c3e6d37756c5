package io.coilgun.cluster.unit;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskRole;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens the tasks given to a processor unit off its thread: opening a task's state store and reservoir takes tens to
 * hundreds of milliseconds, which the tasks the unit leads must not wait for. Before opening, the node copies the
 * task from a peer where it has to ({@link UnitHost#recoverFirst}); then the task is opened from this node's data and
 * {@linkplain Delivery delivered} to the unit, which takes it between two polls.
 *
 * <p>One thread: a task the unit closed is opened again after its close. Opening reads no chunk, so the unit's chunk
 * cache stays its thread's.
 */
final class TaskOpener implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(TaskOpener.class);

    /**
     * A task opened for the unit, or the reason it is not: what {@link Delivery} hands to the unit's thread.
     *
     * @param task null when its stream is not deployed here (dropped meanwhile) or it could not be opened
     * @param failure why it could not be opened, or null
     * @param copied whether it was copied from a peer first (null: it was not to be)
     */
    record Opened(TopicPartition partition, TaskProcessor task, RuntimeException failure, Boolean copied,
            long ticket) {
    }

    /** Where an opened task goes (on the opener thread): the unit queues it for its own thread. */
    @FunctionalInterface
    interface Delivery {
        void opened(Opened opened);
    }

    private final String unitName;
    private final UnitHost host;
    /** The unit the tasks are opened for, as the host knows it (null in tests that need no host to know it). */
    private final ProcessorUnit unit;
    private final Delivery delivery;
    private final ExecutorService thread;
    /**
     * The open each task still wanted is waiting for, by its ticket: a task given, taken away and given again within
     * a few rebalances is queued more than once, and only its latest open may run and be taken (an earlier one would
     * wait for the task's hold the unit itself has, or open its store twice).
     */
    private final Map<TopicPartition, Long> wanted = new ConcurrentHashMap<>();
    private final AtomicLong tickets = new AtomicLong();

    TaskOpener(String unitName, UnitHost host, ProcessorUnit unit, Delivery delivery) {
        this.unitName = unitName;
        this.host = host;
        this.unit = unit;
        this.delivery = delivery;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "coilgun-" + unitName + "-opener");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Opens task {@code tp} as {@code role}: after the node copied it from a peer when it has to, from this node's
     * data. {@code logStart} is the partition's first offset in Kafka (what retention kept).
     */
    void open(TopicPartition tp, TaskRole role, long logStart) {
        TaskId id = TaskId.of(tp);
        long ticket = tickets.incrementAndGet();
        wanted.put(tp, ticket);
        thread.execute(() -> {
            if (!wanted(tp, ticket)) {
                return; // taken away before its turn: nothing to open
            }
            boolean copying;
            try {
                copying = host.recoverFirst(id, role, logStart, unit, copied -> {
                    try {
                        thread.execute(() -> openHere(tp, copied, ticket));
                    } catch (RejectedExecutionException closing) {
                        // the unit stopped meanwhile; the copy stays on disk for the next start
                    }
                });
            } catch (RuntimeException e) {
                LOG.error("unit={} task={} peer recovery not started", unitName, tp, e);
                copying = false;
            }
            if (!copying) {
                openHere(tp, null, ticket);
            }
        });
    }

    /**
     * The unit no longer wants task {@code tp} (the open queued or under way is dropped, or its task closed again
     * when already open): an open waiting for another unit to let go of the task gives up at once.
     */
    void withdraw(TopicPartition tp) {
        if (wanted.remove(tp) != null) {
            host.openWithdrawn(TaskId.of(tp));
        }
    }

    /**
     * On the unit's thread, as it takes a delivery: whether it is the open the task waits for (then it waits no
     * more), or an earlier one.
     */
    boolean take(Opened opened) {
        return wanted.remove(opened.partition(), opened.ticket());
    }

    private boolean wanted(TopicPartition tp, long ticket) {
        Long current = wanted.get(tp);
        return current != null && current == ticket;
    }

    /** On the opener thread: opens the task from this node's data and delivers it. */
    private void openHere(TopicPartition tp, Boolean copied, long ticket) {
        if (!wanted(tp, ticket)) {
            return; // taken away while it was copied (the copy stays on disk)
        }
        TaskProcessor task = null;
        RuntimeException failure = null;
        try {
            task = host.open(TaskId.of(tp), unit, () -> wanted(tp, ticket));
        } catch (RuntimeException e) {
            failure = e;
        }
        delivery.opened(new Opened(tp, task, failure, copied, ticket));
    }

    /** Stops opening: what is being opened now finishes (and is delivered) within 10 s, the rest is dropped. */
    @Override
    public void close() {
        thread.shutdownNow();
        try {
            thread.awaitTermination(10, TimeUnit.SECONDS); // its last opens, which the unit closes
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
