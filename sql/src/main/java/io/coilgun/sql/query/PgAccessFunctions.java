package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;

/**
 * Postgres' functions about roles and privileges, as a query of the session's user answers them (registered with
 * {@link PgFunctions}): {@code has_table_privilege}, {@code pg_get_userbyid}, {@code pg_cancel_backend}.
 */
public final class PgAccessFunctions {
    private PgAccessFunctions() {
    }

    public static Boolean has_table_privilege(String table, String privilege) {
        return has_table_privilege(PgFunctions.rels().user, table, privilege);
    }

    /**
     * Whether {@code user} holds any of the privileges named ({@code 'SELECT'}, {@code 'SELECT, INSERT'}, with or
     * without {@code WITH GRANT OPTION}) on the relation: as owner, superuser or by a grant; what everyone may read
     * (pg_catalog, information_schema) is readable.
     */
    public static Boolean has_table_privilege(String user, String table, String privilege) {
        if (user == null || table == null || privilege == null) {
            return null;
        }
        Relations r = PgFunctions.rels();
        Relations.Rel rel = r.byName(table);
        if (rel == null) {
            throw new CoilgunException(SqlState.UNDEFINED_TABLE, "relation \"" + table + "\" does not exist");
        }
        String relation = rel.namespace() == Relations.PUBLIC ? rel.name() : rel.schema() + "." + rel.name();
        boolean guarded = rel.namespace() == Relations.PUBLIC || rel.namespace() == Relations.COILGUN;
        for (String p : privilege.split(",")) {
            String word = p.trim().toUpperCase(java.util.Locale.ROOT).replace(" WITH GRANT OPTION", "").trim();
            if (!java.util.List.of("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")
                    .contains(word)) {
                throw new CoilgunException(SqlState.INVALID_PARAMETER_VALUE, "unrecognized privilege type: \""
                        + p.trim() + "\"");
            }
            if (r.data == null || (guarded ? r.data.hasPrivilege(user, relation, word) : word.equals("SELECT"))) {
                return true;
            }
        }
        return false;
    }

    public static String pg_get_userbyid(Integer oid) {
        Relations r = PgFunctions.rels();
        if (oid != null && r.data != null) {
            for (QueryData.Role role : r.data.roles(r.user)) {
                if (r.roleOid(role.name()) == oid) {
                    return role.name();
                }
            }
        }
        return r.user;
    }

    /** Cancels the statement running in the session with process id {@code pid} (see {@code pg_stat_activity}). */
    public static Boolean pg_cancel_backend(Integer pid) {
        if (pid == null) {
            return false;
        }
        Relations r = PgFunctions.rels();
        if (r.data != null && !r.data.superuser(r.user)) {
            for (SessionActivity s : r.data.sessions()) {
                if (s.pid() == pid && !s.user().equals(r.user)) {
                    throw new CoilgunException(SqlState.INSUFFICIENT_PRIVILEGE, "permission denied to cancel query: "
                            + "only a superuser cancels another role's query");
                }
            }
        }
        return r.session.cancelBackend(pid);
    }
}
