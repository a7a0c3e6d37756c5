package io.coilgun.tests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.sql.query.PgTypes;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import org.junit.jupiter.api.Test;

/**
 * pgwire depends on no other module, so the Postgres vocabulary has one table on each side of that line: the
 * SQLSTATEs (planner's {@link SqlState} for the engine, pgwire's {@link SqlStates} for the protocol) and the types
 * (pgwire's {@link PgType} on the wire, sql's {@link PgTypes} in the catalog tables). This holds each pair to the
 * same facts.
 */
class PostgresVocabularyTest {
    @Test
    void aConditionHasOneCodeOnBothSides() throws IllegalAccessException {
        int shared = 0;
        for (Field f : SqlStates.class.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers()) || f.getType() != String.class) {
                continue;
            }
            String code = (String) f.get(null);
            assertEquals(5, code.length(), f.getName());
            for (SqlState state : SqlState.values()) {
                if (state.name().equals(f.getName())) {
                    assertEquals(state.code(), code, f.getName());
                    shared++;
                }
            }
        }
        assertEquals(true, shared >= 10, "the two tables share the common conditions (" + shared + ")");
    }

    @Test
    void everyWireTypeIsInTheCatalogWithItsSize() {
        for (PgType type : PgType.values()) {
            if (type == PgType.UNKNOWN) {
                continue; // a parameter left open, never a column's type
            }
            PgTypes.TypeInfo info = PgTypes.info(type.oid());
            assertNotNull(info, type.name());
            assertEquals(type.size(), info.length(), type.name());
        }
    }

    @Test
    void everyColumnTypeHasAWireType() {
        for (ColumnType t : ColumnType.values()) {
            assertNotNull(PgType.of(PgTypes.of(t)), t.name());
        }
    }
}
