package io.coilgun.planner.plan;

import io.coilgun.storage.state.StateStore;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.TreeMap;

/**
 * The records a task failed on and skips ({@link FailedEvent}), kept in its state store as rows
 * {@code m\0failed\0<offset>}: the last {@link #MAX} of them (older offsets are behind every checkpoint anyway).
 */
final class FailedEvents {
    static final int MAX = 100;
    private static final byte[] PREFIX = "m\0failed\0".getBytes(StandardCharsets.UTF_8);

    private final StateStore store;
    private final TreeMap<Long, FailedEvent> byOffset = new TreeMap<>();

    /** The failed events {@code store} holds. */
    FailedEvents(StateStore store) {
        this.store = store;
        store.scan(PREFIX, key(Long.MAX_VALUE), (key, value) -> {
            FailedEvent f = FailedEvent.decode(value);
            byOffset.put(f.offset(), f);
            return true;
        });
    }

    boolean contains(long offset) {
        return !byOffset.isEmpty() && byOffset.containsKey(offset);
    }

    /** Remembers {@code event}, durably and at once. */
    void record(FailedEvent event) {
        byOffset.put(event.offset(), event);
        store.put(key(event.offset()), event.encode());
        while (byOffset.size() > MAX) {
            store.delete(key(byOffset.pollFirstEntry().getKey()));
        }
        store.commit();
    }

    /** Oldest first. */
    List<FailedEvent> all() {
        return List.copyOf(byOffset.values());
    }

    private static byte[] key(long offset) {
        return ByteBuffer.allocate(PREFIX.length + 8).put(PREFIX).putLong(offset).array();
    }
}
