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

    static List<Object[]> rows(List<SessionActivity> sessions) {
        List<Object[]> rows = new ArrayList<>(sessions.size());
        for (SessionActivity s : sessions) {
            rows.add(new Object[] {Relations.DATABASE, s.database(), s.pid(), null, Relations.OWNER, s.user(),
                s.applicationName(), s.clientAddr(), null, s.clientPort(), s.backendStart(), s.xactStart(), s.queryStart(), s.stateChange(), null, null,
                s.state(), null, null, null, s.query(), "client backend", s.node()});
        }
        return rows;
    }
}
