package io.coilgun.storage.state;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The thread that applies the stores' {@link Changelog changelog} records to their families, off the processor
 * threads: one per process (a daemon), fed a queue of changelogs with records written and not materialized. A
 * changelog is in the queue at most once; its records are applied oldest first, one per hold of its lock, so that
 * the owner's thread waiting on the lock (a drop, a close, the changelog at its bound) waits for one record at most.
 *
 * <p>A failure to apply a record (RocksDB refused the write) leaves the record in the changelog: the store's next
 * open applies it or fails saying why; the materializer goes on with the other stores.
 */
final class Materializer {
    static final Materializer PROCESS = new Materializer();
    private static final Logger LOG = LoggerFactory.getLogger(Materializer.class);

    private final ConcurrentLinkedQueue<Changelog> work = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean parked;

    private Materializer() {
        thread = new Thread(this::run, "coilgun-materializer");
        thread.setDaemon(true);
        thread.start();
    }

    /** The changelog has records to materialize. */
    void wake(Changelog log) {
        if (log.queued.compareAndSet(false, true)) {
            work.add(log);
            if (parked) {
                LockSupport.unpark(thread);
            }
        }
    }

    private void run() {
        while (true) {
            Changelog log = work.poll();
            if (log == null) {
                parked = true;
                if (work.isEmpty()) {
                    LockSupport.parkNanos(100_000_000L);
                }
                parked = false;
                continue;
            }
            boolean failed = false;
            try {
                while (materializeOne(log)) {
                    Thread.onSpinWait();
                }
            } catch (RuntimeException e) {
                failed = true; // the record stays; the next append tries again, the store's next open at the latest
                LOG.warn("cannot materialize a changelog record: {}", e.getMessage(), e);
            } finally {
                log.queued.set(false);
            }
            if (!failed && log.materialized() < log.written() && !log.closed()) {
                wake(log); // written meanwhile
            }
        }
    }

    private static boolean materializeOne(Changelog log) {
        log.lock.lock();
        try {
            return log.materializeNext();
        } finally {
            log.lock.unlock();
        }
    }
}
