package io.coilgun.storage.reservoir;

/**
 * Receives each event an iterator passes. The payload is {@code data[offset .. offset + length)}; the array is
 * shared and only valid during the call.
 */
@FunctionalInterface
public interface EventHandler {
    void passed(long seq, long time, int schema, byte[] data, int offset, int length);
}
