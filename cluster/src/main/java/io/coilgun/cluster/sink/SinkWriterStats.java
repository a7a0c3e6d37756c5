package io.coilgun.cluster.sink;

import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A sink writer's transactions: timed ({@code coilgun.sink.transaction}), and summed up in the log once a minute
 * while it writes (transactions, records, the mean and longest commit). Only the writer's thread calls it.
 */
final class SinkWriterStats {
    private static final Logger LOG = LoggerFactory.getLogger(SinkWriterStats.class);
    private static final long EVERY_NS = TimeUnit.MINUTES.toNanos(1);

    private final Timer timer;
    private long since = System.nanoTime();
    private long transactions;
    private long records;
    private long totalNs;
    private long maxNs;

    SinkWriterStats(Timer timer) {
        this.timer = timer;
    }

    void committed(TopicPartition task, int n, long tookNs) {
        if (timer != null) {
            timer.record(tookNs, TimeUnit.NANOSECONDS);
        }
        transactions++;
        records += n;
        totalNs += tookNs;
        maxNs = Math.max(maxNs, tookNs);
        long now = System.nanoTime();
        if (now - since >= EVERY_NS) {
            LOG.info("task={} sinks: {} records in {} transactions in the last {} s; a commit took {} ms on average, "
                    + "{} ms at most", task, records, transactions, (now - since) / 1_000_000_000L,
                    totalNs / transactions / 1_000_000.0, maxNs / 1_000_000.0);
            since = now;
            transactions = 0;
            records = 0;
            totalNs = 0;
            maxNs = 0;
        }
    }
}
