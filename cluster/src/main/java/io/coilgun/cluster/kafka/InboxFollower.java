package io.coilgun.cluster.kafka;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread following a node's own single-partition topic (its reply topic, its peer inbox) from the end it had at
 * start: what was sent to an earlier run of the node is not for this one. Each record goes to {@code handler} on that
 * thread; a handler or poll that throws is logged and the thread goes on, so one bad record never stops the rest.
 */
public final class InboxFollower implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(InboxFollower.class);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Consumer<ConsumerRecord<byte[], byte[]>> handler;
    private final String what;
    private final Thread thread;
    private volatile boolean running = true;

    /** Starts following {@code topic}; its end is resolved before this returns. */
    public InboxFollower(String bootstrapServers, String clientId, String topic, String threadName,
            Consumer<ConsumerRecord<byte[], byte[]>> handler) {
        this.consumer = KafkaClients.consumer(bootstrapServers, clientId, 0, KafkaClients.IDLE_FETCH_WAIT_MS);
        this.handler = handler;
        this.what = topic;
        TopicPartition tp = new TopicPartition(topic, 0);
        consumer.assign(List.of(tp));
        consumer.seekToEnd(List.of(tp));
        consumer.position(tp); // the end now, before anyone waits for a record
        this.thread = new Thread(this::run, threadName);
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (running) {
            try {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    handler.accept(record);
                }
            } catch (WakeupException e) {
                // closing
            } catch (RuntimeException | LinkageError | StackOverflowError e) {
                if (running) {
                    LOG.error("following {} failed; going on", what, e);
                }
            }
        }
        consumer.close(Duration.ofSeconds(2));
    }

    @Override
    public void close() {
        running = false;
        consumer.wakeup();
        try {
            thread.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
