package io.coilgun.cluster.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.cluster.kafka.Topics;
import io.coilgun.cluster.reply.Reply;
import io.coilgun.cluster.reply.ReplyCodec;
import io.coilgun.cluster.reply.ReplyStatus;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** Where a task's answers go: to the publishing node's reply topic, or kept by a replica until a promotion. */
class ReplyEmitterTest {
    static final String TOPIC = "coilgun.stream.p.card";
    final List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
    final ReplyEmitter replies = new ReplyEmitter(new TaskId(TOPIC, 0), sent::add);

    static ConsumerRecord<byte[], byte[]> record(long offset, String node) {
        ConsumerRecord<byte[], byte[]> r = new ConsumerRecord<>(TOPIC, 0, offset, null, new byte[0]);
        if (node != null) {
            r.headers().add(KafkaHeaders.REPLY_TO, node.getBytes(StandardCharsets.UTF_8));
            r.headers().add(KafkaHeaders.CORRELATION, ReplyCodec.correlationKey(offset));
        }
        return r;
    }

    static byte[] answer(ReplyStatus status) {
        return ReplyCodec.encode(status, null, List.of(), new Object[0]);
    }

    static Reply decode(ProducerRecord<byte[], byte[]> r) {
        return ReplyCodec.decode(r.key(), r.value());
    }

    @Test
    void anAnswerGoesToTheReplyTopicOfTheNodeThatPublished() {
        replies.send(record(7, "n2"), answer(ReplyStatus.APPLIED));
        assertEquals(1, sent.size());
        assertEquals(Topics.replies("n2"), sent.get(0).topic());
        assertEquals(0, sent.get(0).partition());
        assertEquals(ReplyStatus.APPLIED, decode(sent.get(0)).status());
        replies.send(record(8, null), answer(ReplyStatus.APPLIED));
        assertEquals(1, sent.size(), "nobody waits for a record without reply headers");
    }

    @Test
    void aStatusAnswerCarriesItsMessageAndNeverThrows() {
        replies.sendStatus(record(3, "n1"), ReplyStatus.FAILED, "task stopped");
        assertEquals("task stopped", decode(sent.get(0)).message());
        ReplyEmitter broken = new ReplyEmitter(new TaskId(TOPIC, 0), r -> {
            throw new IllegalStateException("producer closed");
        });
        broken.sendStatus(record(4, "n1"), ReplyStatus.FAILED, "x"); // logged, not thrown
    }

    @Test
    void aPromotedReplicaSendsTheAnswersKeptFromTheCommittedOffsetOn() {
        for (long offset = 0; offset < 5; offset++) {
            replies.keep(record(offset, "n1"), answer(ReplyStatus.APPLIED));
        }
        replies.keep(record(5, null), answer(ReplyStatus.APPLIED)); // nobody waits: nothing kept
        assertTrue(sent.isEmpty(), "a replica sends nothing");
        assertEquals(2, replies.promote(3, null), "offsets 3 and 4: the old active may not have answered them");
        assertEquals(2, sent.size());
        assertEquals(0, replies.promote(-1, null), "sent once, then forgotten");
    }

    @Test
    void withoutACommittedOffsetEveryKeptAnswerIsSentAndAnActiveKeepsNothing() {
        replies.keep(record(0, "n1"), answer(ReplyStatus.APPLIED));
        replies.keep(record(1, "n1"), answer(ReplyStatus.DUPLICATE));
        assertEquals(2, replies.promote(-1, null));
        replies.keep(record(2, "n1"), answer(ReplyStatus.APPLIED));
        replies.forgetKept();
        assertEquals(0, replies.promote(-1, null));
        assertNull(ReplyEmitter.replyRecord(record(9, null), answer(ReplyStatus.APPLIED)));
    }
}
