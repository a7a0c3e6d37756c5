package io.coilgun.sql.query;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coilgun.sql.compile.SystemTableNames;
import java.util.List;
import org.junit.jupiter.api.Test;

class SystemTablesTest {
    /** GRANT … ON coilgun.<name> is checked against the names the compiler knows: they are the engine's tables. */
    @Test
    void theCompilerKnowsEverySystemTable() {
        assertEquals(SystemTableNames.ALL, List.copyOf(SystemTables.tables(new EmptyQueryData()).keySet()));
    }
}
