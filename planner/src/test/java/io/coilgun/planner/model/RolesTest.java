package io.coilgun.planner.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RolesTest {
    @Test
    void aRoleRecordReadsBackAsTheRole() {
        for (RoleDef r : List.of(new RoleDef("analyst", false, true, "SCRAM-SHA-256$4096:c2FsdA==$YQ==:Yg=="),
                new RoleDef("root_2", true, false, null))) {
            assertEquals(r, RoleDef.parse(r.ddl()));
        }
    }

    @Test
    void grantsOwnersAndPublic() {
        Roles roles = new Roles();
        roles.put(new RoleDef("a", false, true, null));
        roles.grant("a", "m", Set.of(Privilege.SELECT));
        roles.grant(Roles.PUBLIC, "s", Set.of(Privilege.SELECT, Privilege.INSERT));
        assertTrue(roles.grantedOrPublic("a", Privilege.SELECT, "m"));
        assertFalse(roles.grantedOrPublic("a", Privilege.INSERT, "m"));
        assertTrue(roles.grantedOrPublic("a", Privilege.INSERT, "s"), "through PUBLIC");
        assertEquals(List.of("a"), roles.granteesOf("m"));
        roles.grant("a", "m", Set.of());
        assertEquals(Set.of(), roles.granted("a", "m"));
        assertEquals(List.of(), roles.granteesOf("m"));
        roles.owner("m", "a");
        assertEquals(List.of("m"), roles.ownedBy("a"));
        roles.owner("m", null);
        assertEquals(List.of(), roles.ownedBy("a"));
        roles.grant("a", "x", Set.of(Privilege.SELECT));
        roles.remove("a");
        assertTrue(roles.role("a").isEmpty());
        assertEquals(Set.of(), roles.objectsGrantedTo("a"), "a dropped role's grants go with it");
    }
}
