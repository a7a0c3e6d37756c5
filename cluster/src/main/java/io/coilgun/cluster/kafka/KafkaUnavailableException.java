package io.coilgun.cluster.kafka;

/** Kafka cannot be reached or refused a request the node cannot work without. */
public final class KafkaUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public KafkaUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
