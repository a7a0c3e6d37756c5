package io.coilgun.cluster.kafka;

/** Kafka cannot be reached or refused a request the node cannot work without. */
public final class KafkaUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Whether Kafka answered but refused the node's credentials (its client settings), rather than not answering. */
    private final boolean credentialsRefused;

    public KafkaUnavailableException(String message, Throwable cause) {
        this(message, cause, false);
    }

    public KafkaUnavailableException(String message, Throwable cause, boolean credentialsRefused) {
        super(message, cause);
        this.credentialsRefused = credentialsRefused;
    }

    public boolean credentialsRefused() {
        return credentialsRefused;
    }
}
