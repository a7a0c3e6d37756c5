package io.coilgun.planner.model;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The roles of the catalog, the privileges granted to them and who owns each stream, metric and sink. Reads take a
 * snapshot without a lock (every statement asks); the DDL thread changes it. Who is a superuser besides the roles
 * marked so (the node's configured users) is the node's to say, not the catalog's.
 */
public final class Roles {
    /** The grantee every role has the privileges of (GRANT … TO PUBLIC). */
    public static final String PUBLIC = "public";
    /** The object CREATE is granted on: schema public, where streams, metrics and sinks are made. */
    public static final String SCHEMA_PUBLIC = "schema public";

    /**
     * @param grants per role, per object: what it was granted
     * @param owners per stream, metric or sink: the role that created it (absent: made before roles existed)
     */
    private record State(Map<String, RoleDef> roles, Map<String, Map<String, Set<Privilege>>> grants,
            Map<String, String> owners) {
    }

    private volatile State state = new State(Map.of(), Map.of(), Map.of());

    public Optional<RoleDef> role(String name) {
        return Optional.ofNullable(state.roles.get(name));
    }

    /** Every role, by name. */
    public List<RoleDef> roles() {
        return List.copyOf(new TreeMap<>(state.roles).values());
    }

    public synchronized void put(RoleDef role) {
        Map<String, RoleDef> roles = new HashMap<>(state.roles);
        roles.put(role.name(), role);
        state = new State(Map.copyOf(roles), state.grants, state.owners);
    }

    /** Removes the role and what was granted to it. */
    public synchronized void remove(String name) {
        Map<String, RoleDef> roles = new HashMap<>(state.roles);
        roles.remove(name);
        Map<String, Map<String, Set<Privilege>>> grants = new HashMap<>(state.grants);
        grants.remove(name);
        state = new State(Map.copyOf(roles), Map.copyOf(grants), state.owners);
    }

    /** What {@code role} holds on {@code object} (granted to it, not to PUBLIC). */
    public Set<Privilege> granted(String role, String object) {
        Set<Privilege> p = state.grants.getOrDefault(role, Map.of()).get(object);
        return p == null ? Set.of() : p;
    }

    /** Sets what {@code role} holds on {@code object} (empty: nothing). */
    public synchronized void grant(String role, String object, Set<Privilege> privileges) {
        Map<String, Map<String, Set<Privilege>>> grants = new HashMap<>(state.grants);
        Map<String, Set<Privilege>> ofRole = new HashMap<>(grants.getOrDefault(role, Map.of()));
        if (privileges.isEmpty()) {
            ofRole.remove(object);
        } else {
            ofRole.put(object, Set.copyOf(EnumSet.copyOf(privileges)));
        }
        if (ofRole.isEmpty()) {
            grants.remove(role);
        } else {
            grants.put(role, Map.copyOf(ofRole));
        }
        state = new State(state.roles, Map.copyOf(grants), state.owners);
    }

    /** The roles holding privileges on {@code object}: what a DROP of the object takes away. */
    public List<String> granteesOf(String object) {
        List<String> roles = new ArrayList<>();
        state.grants.forEach((role, objects) -> {
            if (objects.containsKey(object)) {
                roles.add(role);
            }
        });
        return roles;
    }

    /** The objects {@code role} holds privileges on. */
    public Set<String> objectsGrantedTo(String role) {
        return state.grants.getOrDefault(role, Map.of()).keySet();
    }

    /** Whether {@code role}, or PUBLIC, was granted {@code privilege} on {@code object}. */
    public boolean grantedOrPublic(String role, Privilege privilege, String object) {
        return granted(role, object).contains(privilege) || granted(PUBLIC, object).contains(privilege);
    }

    public Optional<String> owner(String object) {
        return Optional.ofNullable(state.owners.get(object));
    }

    /** Sets (or with null, forgets) the owner of a stream, metric or sink. */
    public synchronized void owner(String object, String role) {
        Map<String, String> owners = new HashMap<>(state.owners);
        if (role == null) {
            owners.remove(object);
        } else {
            owners.put(object, role);
        }
        state = new State(state.roles, state.grants, Map.copyOf(owners));
    }

    /** The objects {@code role} owns. */
    public List<String> ownedBy(String role) {
        List<String> owned = new ArrayList<>();
        state.owners.forEach((object, owner) -> {
            if (owner.equals(role)) {
                owned.add(object);
            }
        });
        owned.sort(null);
        return owned;
    }
}
