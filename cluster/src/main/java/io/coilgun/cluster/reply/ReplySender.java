package io.coilgun.cluster.reply;

import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Where a task sends its replies: a record for the reply topic of the node that published the event. The node's own
 * sender hands replies for its own front end straight to its {@link ReplyRouter} and produces the others to Kafka
 * ({@link ReplyRouter#sender}).
 */
@FunctionalInterface
public interface ReplySender {
    void send(ProducerRecord<byte[], byte[]> reply);
}
