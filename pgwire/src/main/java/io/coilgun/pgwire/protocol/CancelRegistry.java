package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.codec.BackendMessage.BackendKeyData;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The open connections of one server by process id, so a CancelRequest (which arrives on a connection of its
 * own, quoting the BackendKeyData of the one to cancel) can find its target. A request whose secret does not
 * match is ignored without a word, as Postgres does.
 */
public final class CancelRegistry {
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<Integer, Entry> connections = new ConcurrentHashMap<>();

    private record Entry(int secret, Runnable cancel) {
    }

    /** A fresh key for a new connection, registered with what to do on cancel. */
    BackendKeyData register(Runnable cancel) {
        while (true) {
            int processId = RANDOM.nextInt(Integer.MAX_VALUE - 1) + 1;
            int secret = RANDOM.nextInt();
            if (connections.putIfAbsent(processId, new Entry(secret, cancel)) == null) {
                return new BackendKeyData(processId, secret);
            }
        }
    }

    void unregister(BackendKeyData key) {
        if (key != null) {
            connections.remove(key.processId());
        }
    }

    /** @return whether a connection was found and told */
    boolean cancel(int processId, int secret) {
        Entry entry = connections.get(processId);
        if (entry == null || entry.secret() != secret) {
            return false;
        }
        entry.cancel().run();
        return true;
    }

    /** The number of open connections (past startup). */
    public int size() {
        return connections.size();
    }
}
