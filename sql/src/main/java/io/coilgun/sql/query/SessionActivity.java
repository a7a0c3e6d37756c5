package io.coilgun.sql.query;

/**
 * One client session as {@code pg_stat_activity} shows it; times in epoch milliseconds (null when none).
 *
 * @param state {@code active}, {@code idle} or {@code idle in transaction}, as in Postgres
 * @param query the statement running, or the last one
 * @param node the id of the node the session is connected to
 */
public record SessionActivity(int pid, String user, String database, String applicationName, String clientAddr,
        Integer clientPort, long backendStart, Long xactStart, Long queryStart, Long stateChange, String state,
        String query, String node) {

    /** The same session, on {@code nodeId}. */
    public SessionActivity on(String nodeId) {
        return new SessionActivity(pid, user, database, applicationName, clientAddr, clientPort, backendStart,
                xactStart, queryStart, stateChange, state, query, nodeId);
    }
}
