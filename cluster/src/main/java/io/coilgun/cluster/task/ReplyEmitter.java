package io.coilgun.cluster.task;

import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.reply.ReplyCodec;
import io.coilgun.cluster.reply.ReplySender;
import io.coilgun.cluster.reply.ReplyStatus;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's answers: each goes to the reply topic of the node that published the event (headers
 * {@link KafkaHeaders#REPLY_TO} and {@link KafkaHeaders#CORRELATION}; a record without them waits for none). The
 * active copy sends them; a replica keeps the last {@link RecentReplies#CAPACITY} of them, and sends those the old
 * active may not have sent when it is promoted. Only the task's unit thread calls it.
 */
final class ReplyEmitter {
    private static final Logger LOG = LoggerFactory.getLogger(ReplyEmitter.class);
    private static final Object[] NO_VALUES = new Object[0];

    private final TaskId id;
    private final ReplySender sender;
    /** As a replica: the replies it would have sent, for a promotion. */
    private final RecentReplies kept = new RecentReplies();

    ReplyEmitter(TaskId id, ReplySender sender) {
        this.id = id;
        this.sender = sender;
    }

    /** The active copy answers {@code record} with {@code reply} (encoded by {@link ReplyCodec}). */
    void send(ConsumerRecord<byte[], byte[]> record, byte[] reply) {
        ProducerRecord<byte[], byte[]> r = replyRecord(record, reply);
        if (r != null) {
            sender.send(r);
        }
    }

    /** A replica keeps its answer to {@code record}, in case it takes over. */
    void keep(ConsumerRecord<byte[], byte[]> record, byte[] reply) {
        ProducerRecord<byte[], byte[]> r = replyRecord(record, reply);
        if (r != null) {
            kept.add(record.offset(), r);
        }
    }

    /** A replica keeps another record it would have sent for the record at {@code offset} (a decider's forward). */
    void keepRecord(long offset, ProducerRecord<byte[], byte[]> r) {
        kept.add(offset, r);
    }

    /** The active copy answers {@code record} with a status and message but no values; never throws. */
    void sendStatus(ConsumerRecord<byte[], byte[]> record, ReplyStatus status, String message) {
        try {
            send(record, ReplyCodec.encode(status, message, List.of(), NO_VALUES));
        } catch (RuntimeException e) {
            LOG.error("task={} offset={} cannot send a reply", id, record.offset(), e);
        }
    }

    /**
     * The replica becomes the active copy: it sends the replies it kept of the records at {@code committed} or later
     * (the old active's last committed offset: it may not have answered those), so the statements still waiting for
     * them get their answer; -1 when the group has no committed offset (all kept). Returns how many it sent.
     */
    int promote(long committed, Consumer<ProducerRecord<byte[], byte[]>> forwards) {
        long oldest = kept.oldest();
        if (committed >= 0 && oldest > committed) {
            LOG.warn("task={} promoted: the replies of offsets {}..{} were not kept; statements waiting for them time "
                    + "out", id, committed, oldest - 1);
        }
        return kept.drainFrom(Math.max(0, committed), r -> {
            if (forwards != null && Topics.isPartitioner(r.topic())) {
                forwards.accept(r); // a decider's forward
            } else {
                sender.send(r);
            }
        });
    }

    /** The oldest offset whose replies (or forwards) are kept, or -1 when none is. */
    long oldestKept() {
        return kept.oldest();
    }

    /** The task is no replica (any more): it keeps nothing. */
    void forgetKept() {
        kept.clear();
    }

    /** The reply to a record, to the reply topic of the node that published it; null when nobody waits for one. */
    static ProducerRecord<byte[], byte[]> replyRecord(ConsumerRecord<byte[], byte[]> record, byte[] reply) {
        Header replyTo = record.headers().lastHeader(KafkaHeaders.REPLY_TO);
        Header correlation = record.headers().lastHeader(KafkaHeaders.CORRELATION);
        if (replyTo == null || correlation == null) {
            return null;
        }
        String node = new String(replyTo.value(), StandardCharsets.UTF_8);
        return new ProducerRecord<>(Topics.replies(node), 0, ReplyCodec.replyKey(correlation.value(), record.topic()),
                reply);
    }
}
