package io.coilgun.server.session;

import io.coilgun.sql.query.SessionActivity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The node's client sessions by process id, and through {@link Elsewhere} the other nodes': what
 * {@code pg_stat_activity} lists and {@code pg_cancel_backend} finds, cluster-wide.
 */
public final class SessionRegistry {
    /** The sessions of the cluster's other nodes. */
    public interface Elsewhere {
        /** Each other node's sessions, as far as they answer in time. */
        List<SessionActivity> sessions();

        /** Cancels the statement of session {@code pid} on whichever other node has it; false when none does. */
        boolean cancel(int pid);
    }

    private static final Elsewhere NOWHERE = new Elsewhere() {
        @Override
        public List<SessionActivity> sessions() {
            return List.of();
        }

        @Override
        public boolean cancel(int pid) {
            return false;
        }
    };

    private final String nodeId;
    private final Map<Integer, CoilgunSession> sessions = new ConcurrentHashMap<>();
    private volatile Elsewhere elsewhere = NOWHERE;

    public SessionRegistry(String nodeId) {
        this.nodeId = nodeId;
    }

    /** Where the other nodes' sessions are found (once the cluster is up). */
    public void elsewhere(Elsewhere others) {
        this.elsewhere = others;
    }

    void add(int pid, CoilgunSession session) {
        sessions.put(pid, session);
    }

    void remove(int pid, CoilgunSession session) {
        sessions.remove(pid, session);
    }

    /**
     * Cancels the statement running in session {@code pid} of the cluster (a CancelRequest's effect, {@code
     * pg_cancel_backend}); false when there is none.
     */
    boolean cancel(int pid) {
        return cancelHere(pid) || elsewhere.cancel(pid);
    }

    /** {@link #cancel} of a session of this node only (what another node asks). */
    public boolean cancelHere(int pid) {
        CoilgunSession s = sessions.get(pid);
        if (s == null) {
            return false;
        }
        s.cancel();
        return true;
    }

    /** Every session of the cluster: this node's, then the others' (as far as they answer). */
    public List<SessionActivity> activity() {
        List<SessionActivity> out = new ArrayList<>(here());
        out.addAll(elsewhere.sessions());
        return out;
    }

    /** This node's sessions. */
    public List<SessionActivity> here() {
        List<SessionActivity> out = new ArrayList<>(sessions.size());
        for (CoilgunSession s : sessions.values()) {
            out.add(s.activity().on(nodeId));
        }
        return out;
    }

    /** Whether session {@code pid} is on this node. */
    public boolean has(int pid) {
        return sessions.containsKey(pid);
    }

    /** Open client sessions of this node. */
    public int size() {
        return sessions.size();
    }
}
