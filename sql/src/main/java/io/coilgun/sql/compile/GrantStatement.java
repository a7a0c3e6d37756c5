package io.coilgun.sql.compile;

import io.coilgun.planner.model.Privilege;
import java.util.List;
import java.util.Set;

/**
 * GRANT or REVOKE: {@code privileges} on each of {@code objects} (a stream, metric or system table by name, e.g.
 * {@code coilgun.tasks}, or {@link io.coilgun.planner.model.Roles#SCHEMA_PUBLIC}) to or from each of {@code roles}
 * ({@link io.coilgun.planner.model.Roles#PUBLIC}: every role).
 */
public record GrantStatement(boolean grant, Set<Privilege> privileges, List<String> objects, List<String> roles)
        implements CompiledStatement {
    public GrantStatement {
        privileges = Set.copyOf(privileges);
        objects = List.copyOf(objects);
        roles = List.copyOf(roles);
    }
}
