package io.coilgun.sql.query;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code pg_catalog.pg_stat_activity}: one row per client session of the cluster, with Postgres' columns (those
 * Coilgun has nothing for are NULL) and {@code node}, the node the session is on, so that tools list sessions and
 * find the pid to {@code pg_cancel_backend}.
 */
final class PgStatActivity {
    static final List<Col> COLUMNS = List.of(Col.oid("datid"), Col.name("datname"), Col.int4("pid"),
            Col.int4("leader_pid"), Col.oid("usesysid"), Col.name("usename"), Col.text("application_name"),
            Col.text("client_addr"), Col.text("client_hostname"), Col.int4("client_port"),
            Col.timestamp("backend_start"), Col.timestamp("xact_start"), Col.timestamp("query_start"),
            Col.timestamp("state_change"), Col.text("wait_event_type"), Col.text("wait_event"), Col.text("state"),
            Col.text("backend_xid"), Col.text("backend_xmin"), Col.int8("query_id"), Col.text("query"),
            Col.text("backend_type"), Col.text("node"));

    private PgStatActivity() {
    }

    /**
     * The sessions as {@code viewer} sees them: a superuser every one whole; another role its own whole and, of the
     * others', who and where but not what they run ({@code <insufficient privilege>}, as Postgres shows it).
     */
    static List<Object[]> rows(List<SessionActivity> sessions, String viewer, boolean superuser) {
        List<Object[]> rows = new ArrayList<>(sessions.size());
        for (SessionActivity s : sessions) {
            if (!superuser && !s.user().equals(viewer)) {
                rows.add(new Object[] {Relations.DATABASE, s.database(), s.pid(), null, Relations.OWNER, s.user(),
                    s.applicationName(), null, null, null, null, null, null, null, null, null, null, null, null,
                    null, "<insufficient privilege>", "client backend", s.node()});
                continue;
            }
            rows.add(new Object[] {Relations.DATABASE, s.database(), s.pid(), null, Relations.OWNER, s.user(),
                s.applicationName(), s.clientAddr(), null, s.clientPort(), s.backendStart(), s.xactStart(), s.queryStart(), s.stateChange(), null, null,
                s.state(), null, null, null, s.query(), "client backend", s.node()});
        }
        return rows;
    }
}
