package io.coilgun.storage.state;

/** A RocksDB failure: the task cannot go on with this store. */
public final class StateStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StateStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
