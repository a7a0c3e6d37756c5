package io.coilgun.cluster.unit;

import io.coilgun.cluster.kafka.KafkaClients;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.cluster.task.TaskState;
import io.coilgun.storage.reservoir.ChunkCache;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that runs many task processors: it polls the Kafka partitions of its tasks, hands each record
 * to its task, and checkpoints the tasks that changed at most every 100 ms (and whenever it goes idle). Commands (add a task, add a metric) are queued and
 * run on the unit's thread between polls, so a task processor is only ever touched by this thread.
 */
public final class ProcessorUnit implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ProcessorUnit.class);
    private static final Duration POLL = Duration.ofMillis(50);
    private static final long CHECKPOINT_EVERY_NS = 100_000_000L;

    private final String name;
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Map<TopicPartition, TaskProcessor> tasks = new HashMap<>();
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private final ChunkCache chunkCache;
    private volatile boolean running = true;
    /** The fatal error that stopped the unit's thread, or null while it runs. */
    private volatile Throwable died;

    /**
     * @param chunkCache the decoded-chunk cache of this unit's reservoirs: one per unit, so no lock is shared
     *     between units
     */
    public ProcessorUnit(String name, String bootstrapServers, ChunkCache chunkCache) {
        this.name = name;
        this.chunkCache = chunkCache;
        this.consumer = KafkaClients.consumer(bootstrapServers, "coilgun-" + name, 1000, 50);
        this.thread = new Thread(this::run, "coilgun-" + name);
    }

    public String name() {
        return name;
    }

    public void start() {
        thread.start();
    }

    /** Runs {@code command} on the unit's thread; the future completes when it ran. */
    public CompletableFuture<Void> submit(Consumer<ProcessorUnit> command) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        if (died != null) {
            done.completeExceptionally(new IllegalStateException("processor unit " + name + " stopped: " + died));
            return done;
        }
        commands.add(() -> {
            try {
                command.accept(this);
                done.complete(null);
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        consumer.wakeup();
        return done;
    }

    /** On the unit's thread: starts consuming the task's partition after its checkpoint. */
    public void addTask(TaskProcessor task) {
        TopicPartition tp = task.id().topicPartition();
        tasks.put(tp, task);
        consumer.assign(new HashSet<>(tasks.keySet()));
        consumer.seek(tp, task.nextOffset());
    }

    /**
     * On the unit's thread: stops consuming the task's partition and releases the task without a checkpoint (its
     * stream is being dropped). Returns whether the unit ran it.
     */
    public boolean removeTask(TaskId id) {
        TaskProcessor task = tasks.remove(id.topicPartition());
        if (task == null) {
            return false;
        }
        consumer.assign(new HashSet<>(tasks.keySet()));
        task.discard();
        return true;
    }

    /** On the unit's thread: the chunk cache shared by this unit's reservoirs. */
    public ChunkCache chunkCache() {
        return chunkCache;
    }

    /** On the unit's thread: the task processors this unit runs. */
    public Iterable<TaskProcessor> tasks() {
        return tasks.values();
    }

    public TaskProcessor task(TaskId id) {
        return tasks.get(id.topicPartition());
    }

    /**
     * The unit's loop. Nothing a task does stops it: a task contains its own failures ({@link TaskProcessor}), and
     * anything else one iteration throws is logged and the loop goes on. Only an error of the JVM itself (out of
     * memory) stops the unit, loudly: its tasks are stopped so statements for them fail at once.
     */
    private void run() {
        Set<TaskProcessor> touched = new HashSet<>();
        long[] lastCheckpoint = {System.nanoTime()};
        try {
            while (running) {
                try {
                    if (!iterate(touched, lastCheckpoint)) {
                        break;
                    }
                } catch (VirtualMachineError fatal) {
                    if (fatal instanceof StackOverflowError) {
                        LOG.error("unit={} iteration failed; going on", name, fatal);
                        continue;
                    }
                    throw fatal;
                } catch (Throwable t) {
                    LOG.error("unit={} iteration failed; going on", name, t);
                }
            }
        } catch (Throwable fatal) {
            died = fatal;
            LOG.error("unit={} stopped by a fatal error; its tasks are stopped until the node restarts", name, fatal);
            Runnable queued;
            while ((queued = commands.poll()) != null) {
                queued.run(); // a command runs or fails its future: nobody waits for a dead unit
            }
            for (TaskProcessor task : tasks.values()) {
                task.stopFor("its processor unit " + name + " stopped: " + fatal);
            }
            return;
        }
        Runnable command;
        while ((command = commands.poll()) != null) {
            command.run();
        }
        for (TaskProcessor task : tasks.values()) {
            try {
                task.close();
            } catch (RuntimeException e) {
                LOG.error("unit={} task={} close failed", name, task.id(), e);
            }
        }
        consumer.close(Duration.ofSeconds(2));
    }

    /** One round: commands, a poll, its records, maybe checkpoints. False when the thread is interrupted. */
    private boolean iterate(Set<TaskProcessor> touched, long[] lastCheckpoint) {
        Runnable command;
        while ((command = commands.poll()) != null) {
            command.run();
        }
        if (tasks.isEmpty()) {
            try {
                Thread.sleep(10); // idle until a task is assigned; commands wake us up within 10 ms
            } catch (InterruptedException e) {
                return false;
            }
            return true;
        }
        ConsumerRecords<byte[], byte[]> records;
        try {
            records = consumer.poll(POLL);
        } catch (WakeupException e) {
            return true;
        } catch (RuntimeException e) {
            if (running) {
                LOG.error("unit={} poll failed", name, e);
            }
            return true;
        }
        Set<TopicPartition> rewound = null; // partitions whose rest of this poll is dropped
        for (ConsumerRecord<byte[], byte[]> record : records) {
            TopicPartition tp = new TopicPartition(record.topic(), record.partition());
            TaskProcessor task = tasks.get(tp);
            if (task == null || rewound != null && rewound.contains(tp) && task.state() != TaskState.FAILED) {
                continue; // a rolled-back task gets these again after its seek
            }
            if (task.process(record)) {
                if (task.state() == TaskState.FAILED) {
                    consumer.pause(Set.of(tp));
                } else {
                    consumer.seek(tp, task.nextOffset());
                }
                if (rewound == null) {
                    rewound = new HashSet<>();
                }
                rewound.add(tp);
            }
            touched.add(task);
        }
        // Checkpoints bound what a crash replays from Kafka; replies never wait for them. At most one per
        // CHECKPOINT_EVERY_NS under load, and at once when the unit goes idle.
        long now = System.nanoTime();
        if (!touched.isEmpty() && (records.isEmpty() || now - lastCheckpoint[0] >= CHECKPOINT_EVERY_NS)) {
            for (TaskProcessor task : touched) {
                try {
                    task.checkpointIfDirty();
                } catch (RuntimeException e) {
                    LOG.error("unit={} task={} checkpoint failed", name, task.id(), e);
                }
            }
            touched.clear();
            lastCheckpoint[0] = now;
        }
        return true;
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
