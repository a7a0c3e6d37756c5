package io.coilgun.sql.query;

/**
 * One session of this node as {@code pg_stat_activity} shows it; times in epoch milliseconds (null when none).
 *
 * @param state {@code active}, {@code idle} or {@code idle in transaction}, as in Postgres
 * @param query the statement running, or the last one
 */
public record SessionActivity(int pid, String user, String database, String applicationName, String clientAddr,
        Integer clientPort, long backendStart, Long xactStart, Long queryStart, Long stateChange, String state,
        String query) {
}
