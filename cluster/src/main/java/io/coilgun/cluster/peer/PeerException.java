package io.coilgun.cluster.peer;

/** A call to another node that its handler answered with an error. */
public final class PeerException extends RuntimeException {
    private final String node;

    public PeerException(String node, String message) {
        super(message);
        this.node = node;
    }

    /** The node that answered with the error. */
    public String node() {
        return node;
    }
}
