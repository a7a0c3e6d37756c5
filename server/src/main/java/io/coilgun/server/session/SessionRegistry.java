package io.coilgun.server.session;

import io.coilgun.sql.query.SessionActivity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The node's client sessions by process id: what {@code pg_stat_activity} lists and {@code pg_cancel_backend} finds. */
public final class SessionRegistry {
    private final Map<Integer, CoilgunSession> sessions = new ConcurrentHashMap<>();

    void add(int pid, CoilgunSession session) {
        sessions.put(pid, session);
    }

    void remove(int pid, CoilgunSession session) {
        sessions.remove(pid, session);
    }

    /** Cancels the statement running in session {@code pid} (a CancelRequest's effect); false when there is none. */
    boolean cancel(int pid) {
        CoilgunSession s = sessions.get(pid);
        if (s == null) {
            return false;
        }
        s.cancel();
        return true;
    }

    public List<SessionActivity> activity() {
        List<SessionActivity> out = new ArrayList<>(sessions.size());
        for (CoilgunSession s : sessions.values()) {
            out.add(s.activity());
        }
        return out;
    }

    /** Open client sessions. */
    public int size() {
        return sessions.size();
    }
}
