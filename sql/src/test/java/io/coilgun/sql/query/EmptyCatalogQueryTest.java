package io.coilgun.sql.query;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class EmptyCatalogQueryTest {
    @Test
    void psqlPolicyQueryReadsAnEmptyRelation() {
        String sql = "SELECT pol.polname, pol.polpermissive,\n  CASE WHEN pol.polroles = '{0}' THEN NULL ELSE "
                + "pg_catalog.array_to_string(array(select rolname from pg_catalog.pg_roles where oid = any "
                + "(pol.polroles) order by 1),',') END,\n  CASE pol.polcmd WHEN 'r' THEN 'SELECT' END AS cmd\n"
                + "FROM pg_catalog.pg_policy pol\nWHERE pol.polrelid = '16385' ORDER BY 1;";
        assertTrue(EmptyCatalogQuery.matches(sql));
        assertEquals(List.of("polname", "polpermissive", "?column?", "cmd"), EmptyCatalogQuery.columnNames(sql));
    }

    @Test
    void pgjdbcPrimaryKeysAndIndexes() {
        assertTrue(EmptyCatalogQuery.matches("SELECT result.TABLE_CAT AS \"TABLE_CAT\" FROM (SELECT 1 AS x, "
                + "(information_schema._pg_expandarray(con.conkey)).n AS KEY_SEQ FROM pg_catalog.pg_constraint con "
                + "JOIN pg_catalog.pg_class ct ON (con.conrelid = ct.oid)) result"));
        assertTrue(EmptyCatalogQuery.matches("SELECT 1 FROM (SELECT 2 FROM pg_catalog.pg_class ct JOIN "
                + "pg_catalog.pg_index i ON (ct.oid = i.indrelid)) AS tmp"));
    }

    @Test
    void relationsWithRowsOrOuterJoinsDoNotMatch() {
        assertFalse(EmptyCatalogQuery.matches("SELECT * FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_description"
                + " d ON c.oid = d.objoid"));
        assertFalse(EmptyCatalogQuery.matches("SELECT * FROM card_5m"));
        assertFalse(EmptyCatalogQuery.matches("SELECT 'FROM pg_index' FROM payments"));
    }
}
