package io.coilgun.sql.compile;

import io.coilgun.planner.model.Privilege;
import io.coilgun.sql.parser.SqlRoleStatement;
import java.util.List;

/**
 * One thing a role must hold to run a statement, on an object that exists: what {@link StatementCompiler#needs}
 * finds a statement names, before anything else about the statement is checked, and what the server's privilege
 * check asks of the role (42501 when it lacks it).
 */
public sealed interface Need {
    /** A privilege on a stream, metric or system table ({@code coilgun.tasks}): SELECT to read it, INSERT to append. */
    record OnRelation(Privilege privilege, String relation) implements Need {
    }

    /** CREATE on schema public: to create a stream, metric or sink. */
    record CreateInSchema() implements Need {
    }

    /** To own the object: to alter or drop it. {@code kind} as the error names it: stream, metric or sink. */
    record Owner(String kind, String name) implements Need {
    }

    /**
     * To grant or revoke on {@code object}: its owner's (a relation), a superuser's only
     * ({@link io.coilgun.planner.model.Roles#SCHEMA_PUBLIC}).
     */
    record GrantOn(String object) implements Need {
    }

    /**
     * To create, alter or drop roles: a superuser's, but any role may change its own password ({@code ALTER ROLE}
     * of itself that changes nothing but its password: {@code passwordOnly}).
     */
    record ManageRoles(SqlRoleStatement.Verb verb, List<String> names, boolean passwordOnly) implements Need {
        public ManageRoles {
            names = List.copyOf(names);
        }
    }
}
