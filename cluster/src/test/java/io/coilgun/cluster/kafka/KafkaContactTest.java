package io.coilgun.cluster.kafka;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class KafkaContactTest {
    final AtomicLong proof = new AtomicLong(-1);
    final AtomicLong brokers = new AtomicLong(-1);
    final KafkaContact contact = new KafkaContact(proof::get, brokers::get);

    @Test
    void aNodeNoBrokerAnswersIsCutOffAfterThreeSeconds() {
        proof.set(2_000);
        brokers.set(2_000);
        assertNull(contact.unavailable());
        proof.set(3_500);
        brokers.set(3_500);
        String message = contact.unavailable().getMessage();
        assertTrue(message.contains("cut off from Kafka"), message);
    }

    /** A broker died and the group coordinator moves: the others still answer, so clients get no error for 8 s. */
    @Test
    void aNodeBrokersStillAnswerWaitsForItsCoordinator() {
        proof.set(5_000);
        brokers.set(100);
        assertNull(contact.unavailable());
        proof.set(8_500);
        assertTrue(contact.unavailable().getMessage().contains("too few brokers are up"),
                contact.unavailable().getMessage());
    }

    @Test
    void beforeAnyProofNothingIsJudged() {
        assertNull(contact.unavailable());
    }
}
