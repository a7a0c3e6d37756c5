package io.coilgun.server;

import io.coilgun.cluster.catalog.CatalogKey;
import io.coilgun.pgwire.auth.ScramCredential;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Privilege;
import io.coilgun.planner.model.RoleDef;
import io.coilgun.planner.model.Roles;
import io.coilgun.sql.compile.GrantStatement;
import io.coilgun.sql.compile.RoleStatement;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongBiFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

/**
 * The roles, grants and owners of the durable catalog: each role a record of its own (a CREATE ROLE of it as it is
 * now, with its SCRAM verifier: a password given in clear is made a verifier here, before anything is written), each
 * (role, object) pair's privileges one, each object's owner one. Every node keeps them in its {@link Roles}, from the
 * records it replays and follows; they run on the catalog's DDL thread.
 */
final class RoleCatalog {
    private final Roles roles;
    private final ToLongBiFunction<CatalogKey, String> append;
    private final ToLongFunction<CatalogKey> remove;

    RoleCatalog(Roles roles, ToLongBiFunction<CatalogKey, String> append, ToLongFunction<CatalogKey> remove) {
        this.roles = roles;
        this.append = append;
        this.remove = remove;
    }

    static boolean handles(CatalogKey key) {
        return key.kind() == CatalogKey.Kind.ROLE || key.kind() == CatalogKey.Kind.GRANT
                || key.kind() == CatalogKey.Kind.OWNER;
    }

    /** A record replayed or followed (text null: a tombstone). */
    void apply(CatalogKey key, String text) {
        switch (key.kind()) {
            case ROLE -> {
                if (text == null) {
                    roles.remove(key.name());
                } else {
                    roles.put(RoleDef.parse(text));
                }
            }
            case GRANT -> roles.grant(key.grantee(), key.grantedObject(), privileges(text));
            case OWNER -> roles.owner(key.name(), text);
            default -> throw new IllegalArgumentException("not a role record: " + key);
        }
    }

    /** CREATE, ALTER or DROP ROLE; the offset of its last record (-1: nothing written). */
    long run(RoleStatement rs) {
        long offset = -1;
        for (String name : rs.names()) {
            RoleDef now = roles.role(name).orElse(null);
            switch (rs.verb()) {
                case CREATE -> {
                    if (now != null) {
                        throw new CoilgunException(SqlState.DUPLICATE_OBJECT, "role \"" + name + "\" already exists");
                    }
                    offset = write(new RoleDef(name, Boolean.TRUE.equals(rs.superuser()),
                            Boolean.TRUE.equals(rs.login()), verifier(rs.password())));
                }
                case ALTER -> {
                    if (now == null) {
                        throw new CoilgunException(SqlState.UNDEFINED_OBJECT, "role \"" + name + "\" does not exist");
                    }
                    offset = write(new RoleDef(name, rs.superuser() != null ? rs.superuser() : now.superuser(),
                            rs.login() != null ? rs.login() : now.login(), rs.noPassword() ? null
                            : rs.password() != null ? verifier(rs.password()) : now.verifier()));
                }
                case DROP -> {
                    if (now == null) {
                        continue; // IF EXISTS (the compiler refused it otherwise)
                    }
                    List<String> owned = roles.ownedBy(name);
                    if (!owned.isEmpty()) {
                        throw new CoilgunException(SqlState.DEPENDENT_OBJECTS_STILL_EXIST, "role \"" + name
                                + "\" cannot be dropped because some objects depend on it: it owns "
                                + String.join(", ", owned) + " (drop them first)");
                    }
                    for (String object : List.copyOf(roles.objectsGrantedTo(name))) {
                        remove.applyAsLong(CatalogKey.grant(name, object));
                    }
                    offset = remove.applyAsLong(CatalogKey.role(name));
                    roles.remove(name);
                }
                default -> throw new IllegalStateException(rs.verb().toString());
            }
        }
        return offset;
    }

    private long write(RoleDef role) {
        long offset = append.applyAsLong(CatalogKey.role(role.name()), role.ddl());
        roles.put(role);
        return offset;
    }

    /** A password as the catalog keeps it: a SCRAM-SHA-256 verifier (one given as a verifier is kept as it is). */
    private static String verifier(String password) {
        if (password == null) {
            return null;
        }
        try {
            return ScramCredential.isVerifier(password) ? ScramCredential.parse(password).toVerifier()
                    : ScramCredential.fromPassword(password).toVerifier();
        } catch (IllegalArgumentException e) {
            throw new CoilgunException(SqlState.INVALID_PARAMETER_VALUE, e.getMessage());
        }
    }

    /** GRANT or REVOKE; the offset of its last record (-1: nothing changed). */
    long run(GrantStatement gs) {
        long offset = -1;
        for (String role : gs.roles()) {
            for (String object : gs.objects()) {
                Set<Privilege> held = EnumSet.noneOf(Privilege.class);
                held.addAll(roles.granted(role, object));
                boolean changed = gs.grant() ? held.addAll(gs.privileges()) : held.removeAll(gs.privileges());
                if (!changed) {
                    continue;
                }
                offset = held.isEmpty() ? remove.applyAsLong(CatalogKey.grant(role, object))
                        : append.applyAsLong(CatalogKey.grant(role, object), text(held));
                roles.grant(role, object, held);
            }
        }
        return offset;
    }

    /**
     * Notes who created a stream, metric or sink: its owner. An object that has one keeps it (a CREATE … IF NOT
     * EXISTS that found it created nothing).
     */
    long own(String object, String role) {
        if (roles.owner(object).isPresent()) {
            return -1;
        }
        long offset = append.applyAsLong(CatalogKey.owner(object), role);
        roles.owner(object, role);
        return offset;
    }

    /** A stream, metric or sink dropped: its owner and what was granted on it go with it. */
    void forget(String object) {
        for (String role : roles.granteesOf(object)) {
            remove.applyAsLong(CatalogKey.grant(role, object));
            roles.grant(role, object, Set.of());
        }
        if (roles.owner(object).isPresent()) {
            remove.applyAsLong(CatalogKey.owner(object));
            roles.owner(object, null);
        }
    }

    private static String text(Set<Privilege> privileges) {
        return privileges.stream().map(Enum::name).sorted().collect(Collectors.joining(","));
    }

    private static Set<Privilege> privileges(String text) {
        Set<Privilege> set = EnumSet.noneOf(Privilege.class);
        if (text != null && !text.isEmpty()) {
            Arrays.stream(text.split(",")).map(Privilege::valueOf).forEach(set::add);
        }
        return set;
    }
}
