package io.coilgun.sql.query;

import java.util.List;

/**
 * The session a query runs for, as the session functions see it: {@code current_setting}, {@code pg_backend_pid()},
 * {@code pg_cancel_backend(pid)}.
 */
public interface QuerySession {
    /** No session (internal queries, tests): no settings, pid 0, cancels nothing. */
    QuerySession NONE = new QuerySession() {
        @Override
        public String setting(String name) {
            return null;
        }

        @Override
        public int backendPid() {
            return 0;
        }

        @Override
        public boolean cancelBackend(int pid) {
            return false;
        }
    };

    /** The setting's value (what SHOW answers), or null for a name never set and not built in. */
    String setting(String name);

    /** The session's process id (the client's BackendKeyData). */
    int backendPid();

    /** Cancels the statement running in the session with process id {@code pid}; false when there is none. */
    boolean cancelBackend(int pid);

    /**
     * The session's cursors as {@code pg_cursors} rows: name, statement, is_holdable, is_binary, is_scrollable,
     * creation_time (epoch milliseconds).
     */
    default List<Object[]> cursors() {
        return List.of();
    }
}
