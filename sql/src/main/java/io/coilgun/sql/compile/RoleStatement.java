package io.coilgun.sql.compile;

import io.coilgun.sql.parser.SqlRoleStatement;
import java.util.List;

/**
 * CREATE, ALTER or DROP ROLE (or USER). What an ALTER leaves out stays as it was (null).
 *
 * @param names the roles (one, but for DROP)
 * @param superuser SUPERUSER or NOSUPERUSER, or null
 * @param login LOGIN or NOLOGIN, or null
 * @param password the password as written (a plain password, or a SCRAM-SHA-256 verifier), or null
 * @param noPassword PASSWORD NULL: the role has no password any more
 */
public record RoleStatement(SqlRoleStatement.Verb verb, List<String> names, boolean ifExists, Boolean superuser,
        Boolean login, String password, boolean noPassword) implements CompiledStatement {
    public RoleStatement {
        names = List.copyOf(names);
    }

    /** The command tag: CREATE ROLE, ALTER ROLE or DROP ROLE. */
    public String tag() {
        return verb.name() + " ROLE";
    }
}
