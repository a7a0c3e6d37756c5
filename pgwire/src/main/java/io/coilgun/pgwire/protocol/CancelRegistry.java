package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.codec.BackendMessage.BackendKeyData;
import io.coilgun.pgwire.spi.CancelForward;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;

/**
 * The open connections of one server by process id, so a CancelRequest (which arrives on a connection of its
 * own, quoting the BackendKeyData of the one to cancel) can find its target. A request whose secret does not
 * match is ignored without a word, as Postgres does.
 *
 * <p>Process ids are random; with a slot ({@link #CancelRegistry(IntSupplier)}, 1 to {@value #MAX_SLOT}) the slot is
 * their high bits, so that servers with different slots (a cluster's nodes) never give the same one. A request for
 * a process id this server does not have goes to {@link #forwardTo its other servers} (a load balancer in front of a
 * cluster may send it to any), each of which checks it as its own.
 */
public final class CancelRegistry {
    /** Bits of a process id below its slot. */
    public static final int SLOT_BITS = 20;
    /** The largest slot: a process id stays a positive int. */
    public static final int MAX_SLOT = (1 << (31 - SLOT_BITS)) - 1;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<Integer, Entry> connections = new ConcurrentHashMap<>();
    private final IntSupplier slot;

    public CancelRegistry() {
        this(() -> 0);
    }

    /** @param slot this server's slot of process ids now (0: any process id) */
    public CancelRegistry(IntSupplier slot) {
        this.slot = slot;
    }

    private record Entry(int secret, Runnable cancel) {
    }

    private volatile CancelForward elsewhere;

    /** From now on, a CancelRequest for a process id this server does not have goes to {@code elsewhere}. */
    public void forwardTo(CancelForward elsewhere) {
        this.elsewhere = elsewhere;
    }

    /** A fresh key for a new connection, registered with what to do on cancel. */
    BackendKeyData register(Runnable cancel) {
        while (true) {
            int s = slot.getAsInt();
            int processId = s >= 1 && s <= MAX_SLOT ? s << SLOT_BITS | RANDOM.nextInt((1 << SLOT_BITS) - 1) + 1
                    : RANDOM.nextInt(Integer.MAX_VALUE - 1) + 1;
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

    /** @return whether a connection was found here and told (a request for none here is forwarded) */
    boolean cancel(int processId, int secret) {
        CancelForward forward = elsewhere;
        if (forward != null && !connections.containsKey(processId)) {
            forward.cancel(processId, secret);
            return false;
        }
        return cancelHere(processId, secret);
    }

    /** A CancelRequest for a connection of this server only (one another server forwarded): whether it was told. */
    public boolean cancelHere(int processId, int secret) {
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
