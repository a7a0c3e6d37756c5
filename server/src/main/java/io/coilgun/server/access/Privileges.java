package io.coilgun.server.access;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Privilege;
import io.coilgun.planner.model.RoleDef;
import io.coilgun.planner.model.Roles;
import io.coilgun.sql.compile.Need;
import io.coilgun.sql.parser.SqlRoleStatement;
import io.coilgun.sql.query.QueryData.Role;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Who may run what, as Postgres says it: a superuser everything; another role what it owns (a stream, metric or sink
 * it created: ALTER, DROP, GRANT on it) and what it was granted (SELECT on metrics, streams and system tables,
 * INSERT on streams, CREATE on schema public), itself or through PUBLIC. Superusers are the roles marked so and the
 * node's configured users (the users file); with trust authentication, a user name that is no role is one too, as
 * before roles existed. A statement without its privilege fails with 42501 before anything else about it is checked
 * ({@link #check}), and so before it changes anything. Queries check each relation they read where it is read
 * ({@link #maySelect}), as Postgres' executor does.
 */
public final class Privileges {
    private final Roles roles;
    private final Set<String> configuredUsers;
    private final boolean trust;

    public Privileges(Roles roles, Set<String> configuredUsers, boolean trust) {
        this.roles = roles;
        this.configuredUsers = Set.copyOf(configuredUsers);
        this.trust = trust;
    }

    public boolean superuser(String user) {
        if (configuredUsers.contains(user)) {
            return true;
        }
        RoleDef role = roles.role(user).orElse(null);
        return role == null ? trust : role.superuser();
    }

    /**
     * Whether {@code user} may open a session: a configured user, a role with LOGIN, or under trust a name that is no
     * role (a NOLOGIN role is refused even under trust, as Postgres refuses it).
     */
    public boolean mayLogIn(String user) {
        if (configuredUsers.contains(user)) {
            return true;
        }
        RoleDef role = roles.role(user).orElse(null);
        return role == null ? trust : role.login();
    }

    /** Whether {@code user} may read {@code relation} (a stream, metric, or {@code coilgun.<table>}). */
    public boolean maySelect(String user, String relation) {
        return has(user, relation, "SELECT");
    }

    /**
     * Whether {@code user} holds {@code privilege} (SELECT, INSERT, … upper case) on {@code relation}: a superuser
     * every one, an owner every one its relation takes, another role what it (or PUBLIC) was granted.
     */
    public boolean has(String user, String relation, String privilege) {
        if (superuser(user)) {
            return true;
        }
        Privilege p;
        try {
            p = Privilege.valueOf(privilege);
        } catch (IllegalArgumentException e) {
            return false; // UPDATE, DELETE, …: events are only appended
        }
        return owns(user, relation) || roles.grantedOrPublic(user, p, relation);
    }

    /**
     * The roles pg_roles shows {@code user}: the catalog's, the configured users (superusers) and, under trust, the
     * user itself when it is neither.
     */
    public List<Role> visibleRoles(String user) {
        Map<String, Role> all = new TreeMap<>();
        for (RoleDef r : roles.roles()) {
            all.put(r.name(), new Role(r.name(), superuser(r.name()), r.login()));
        }
        for (String u : configuredUsers) {
            all.put(u, new Role(u, true, true));
        }
        all.putIfAbsent(user, new Role(user, superuser(user), true));
        return List.copyOf(all.values());
    }

    /**
     * Throws 42501 unless {@code user} holds each of {@code needs}, checked in order: what a statement needs
     * ({@link io.coilgun.sql.compile.StatementCompiler#needs}), asked before anything else about the statement is
     * checked (its columns, options, dependents, the other objects it names) and again before it runs. The error
     * names only the object the statement named (no DETAIL, no HINT), worded as Postgres words it.
     */
    public void check(String user, List<Need> needs) {
        if (needs.isEmpty() || superuser(user)) {
            return;
        }
        for (Need n : needs) {
            if (n instanceof Need.OnRelation r) {
                need(user, r.privilege(), r.relation());
            } else if (n instanceof Need.CreateInSchema) {
                needCreate(user);
            } else if (n instanceof Need.Owner o) {
                needOwner(user, o.name(), o.kind());
            } else if (n instanceof Need.GrantOn g) {
                if (g.object().equals(Roles.SCHEMA_PUBLIC)) {
                    throw denied("permission denied for schema public"); // its owner is a superuser
                }
                if (!owns(user, g.object())) {
                    throw denied("permission denied for table " + g.object()); // as Postgres' GRANT says it
                }
            } else if (n instanceof Need.ManageRoles m && !ownPassword(user, m)) {
                throw denied("permission denied to " + m.verb().name().toLowerCase(Locale.ROOT)
                        + " role: only a superuser manages roles");
            }
        }
    }

    /** ALTER ROLE of oneself that only changes one's password, as Postgres lets any role do. */
    private static boolean ownPassword(String user, Need.ManageRoles m) {
        return m.verb() == SqlRoleStatement.Verb.ALTER && m.names().equals(List.of(user)) && m.passwordOnly();
    }

    private boolean owns(String user, String object) {
        return roles.owner(object).map(user::equals).orElse(false);
    }

    private void need(String user, Privilege privilege, String relation) {
        if (!owns(user, relation) && !roles.grantedOrPublic(user, privilege, relation)) {
            throw denied("permission denied for table " + relation);
        }
    }

    private void needCreate(String user) {
        if (!roles.grantedOrPublic(user, Privilege.CREATE, Roles.SCHEMA_PUBLIC)) {
            throw denied("permission denied for schema public");
        }
    }

    private void needOwner(String user, String object, String kind) {
        if (!owns(user, object)) {
            throw denied("must be owner of " + kind + " " + object);
        }
    }

    static CoilgunException denied(String message) {
        return new CoilgunException(SqlState.INSUFFICIENT_PRIVILEGE, message);
    }
}
