package io.coilgun.storage.reservoir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reservoirs' I/O threads, shared by every reservoir of a node, so that processor threads never write or read
 * chunk files themselves:
 * <ul>
 *   <li>one <b>writer</b> compresses sealed chunks, appends them to their segments, syncs, then deletes the journal
 *       files those chunks made redundant. It writes a chunk only once its reservoir's owner has committed a
 *       checkpoint covering every event in it ({@link Reservoir#committed}), so a durable chunk never holds an
 *       event that a restart will replay from Kafka;</li>
 *   <li>a few <b>loaders</b> read, verify and decode chunks ahead of the iterators that will need them.</li>
 * </ul>
 */
public final class ReservoirIO implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReservoirIO.class);

    private final List<Reservoir> reservoirs = new CopyOnWriteArrayList<>();
    private final Thread writer;
    private final ExecutorService loaders;
    private final int compressionLevel;
    private final ReentrantLock writing = new ReentrantLock();
    private volatile boolean running = true;

    public ReservoirIO(int loaderThreads, int compressionLevel) {
        this.compressionLevel = compressionLevel;
        this.loaders = Executors.newFixedThreadPool(loaderThreads, r -> {
            Thread t = new Thread(r, "coilgun-chunk-loader");
            t.setDaemon(true);
            return t;
        });
        this.writer = new Thread(this::writeLoop, "coilgun-chunk-writer");
        writer.setDaemon(true);
        writer.start();
    }

    /** Runs {@code task} on a loader thread: a test holds the loaders busy to see what a reader does meanwhile. */
    CompletableFuture<Void> onLoader(Runnable task) {
        return CompletableFuture.runAsync(task, loaders);
    }

    /** Two loaders and zstd level 1 (fast; the chunk cache and page cache absorb reads). */
    public static ReservoirIO defaults() {
        return new ReservoirIO(2, 1);
    }

    /** A sealed chunk on its way to disk; {@link #done} once synced, with its location. */
    static final class WriteJob {
        final Chunk chunk;
        final long maxSeq;
        final List<Path> journalsToDelete;
        final int deleteSegment;
        volatile Segments.Location location;
        volatile boolean done;

        WriteJob(Chunk chunk, List<Path> journalsToDelete) {
            this.chunk = chunk;
            this.maxSeq = chunk.maxSeq();
            this.journalsToDelete = journalsToDelete;
            this.deleteSegment = -1;
        }

        /** A retention job: delete a segment once the chunks queued before it are written. */
        WriteJob(int deleteSegment) {
            this.chunk = null;
            this.maxSeq = Long.MIN_VALUE;
            this.journalsToDelete = List.of();
            this.deleteSegment = deleteSegment;
        }
    }

    void register(Reservoir r) {
        reservoirs.add(r);
    }

    void unregister(Reservoir r) {
        reservoirs.remove(r);
    }

    /** Unregisters and waits until the writer is surely not working on {@code r} any more. */
    void unregisterAndWait(Reservoir r) {
        reservoirs.remove(r);
        writing.lock();
        writing.unlock();
    }

    /** Wakes the writer: a job was queued or a checkpoint committed. */
    void signal() {
        LockSupport.unpark(writer);
    }

    CompletableFuture<Chunk> load(Segments segments, Segments.Location at) {
        return CompletableFuture.supplyAsync(() -> {
            byte[] frame = segments.read(at);
            return ChunkCodec.decode(frame, 0, frame.length);
        }, loaders);
    }

    private void writeLoop() {
        while (running) {
            boolean worked = false;
            for (Reservoir r : reservoirs) {
                writing.lock();
                try {
                    if (reservoirs.contains(r)) {
                        worked |= writeReady(r);
                    }
                } catch (RuntimeException | LinkageError | StackOverflowError e) {
                    LOG.error("chunk writer failed for reservoir {}", r.dir(), e);
                    r.writeFailed(e instanceof RuntimeException re ? re : new IllegalStateException(e));
                } finally {
                    writing.unlock();
                }
            }
            if (!worked) {
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(20));
            }
        }
    }

    /** Writes the reservoir's ready jobs, syncs once, then publishes them. */
    boolean writeReady(Reservoir r) {
        Queue<WriteJob> queue = r.writeQueue();
        long committed = r.committedSeq();
        List<WriteJob> written = new ArrayList<>();
        WriteJob job;
        while ((job = queue.peek()) != null && job.maxSeq <= committed) {
            if (job.chunk == null) {
                if (!written.isEmpty()) {
                    break; // publish the chunks before deleting anything
                }
                r.segments().deleteSegment(job.deleteSegment);
                queue.poll();
                job.done = true;
                continue;
            }
            job.location = r.segments().append(ChunkCodec.encode(job.chunk, compressionLevel));
            written.add(job);
            queue.poll();
        }
        if (written.isEmpty()) {
            return false;
        }
        r.segments().sync();
        for (WriteJob w : written) {
            for (Path j : w.journalsToDelete) {
                try {
                    Files.deleteIfExists(j);
                } catch (IOException e) {
                    LOG.warn("cannot delete journal {}", j, e);
                }
            }
            w.done = true;
        }
        return true;
    }

    /** Waits (bounded) until the writer has written every job of {@code r} that is ready. */
    void drain(Reservoir r, long timeoutMs) {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (System.currentTimeMillis() < deadline) {
            WriteJob head = r.writeQueue().peek();
            if (head == null || head.maxSeq > r.committedSeq()) {
                return;
            }
            signal();
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    @Override
    public void close() {
        running = false;
        signal();
        try {
            writer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        loaders.shutdownNow();
    }
}
