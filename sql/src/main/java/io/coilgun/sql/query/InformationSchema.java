package io.coilgun.sql.query;

import static io.coilgun.sql.query.Col.int4;
import static io.coilgun.sql.query.Col.text;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The {@code information_schema} views BI tools read (schemata, tables, columns), answered from {@link Relations}. */
final class InformationSchema {
    private InformationSchema() {
    }

    static Map<String, RowsTable> tables(Relations rels) {
        Map<String, RowsTable> t = new LinkedHashMap<>();
        t.put("schemata", new RowsTable(List.of(text("catalog_name"), text("schema_name"), text("schema_owner"),
                text("default_character_set_catalog"), text("default_character_set_schema"),
                text("default_character_set_name"), text("sql_path")),
                () -> PgCatalog.map(Relations.NAMESPACES, n -> new Object[] {rels.database, n.name(), rels.user, null,
                    null, null, null})));
        t.put("tables", new RowsTable(List.of(text("table_catalog"), text("table_schema"), text("table_name"),
                text("table_type"), text("self_referencing_column_name"), text("reference_generation"),
                text("user_defined_type_catalog"), text("user_defined_type_schema"), text("user_defined_type_name"),
                text("is_insertable_into"), text("is_typed"), text("commit_action")),
                () -> PgCatalog.map(rels.all(), r -> new Object[] {rels.database, r.schema(), r.name(),
                    r.namespace() == Relations.PUBLIC || r.namespace() == Relations.COILGUN ? "BASE TABLE" : "VIEW",
                    null, null, null, null, null, r.kind().equals("stream") ? "YES" : "NO", "NO", null})));
        t.put("columns", new RowsTable(List.of(text("table_catalog"), text("table_schema"), text("table_name"),
                text("column_name"), int4("ordinal_position"), text("column_default"), text("is_nullable"),
                text("data_type"), int4("character_maximum_length"), int4("character_octet_length"),
                int4("numeric_precision"), int4("numeric_precision_radix"), int4("numeric_scale"),
                int4("datetime_precision"), text("udt_catalog"), text("udt_schema"), text("udt_name"),
                text("is_identity"), text("is_generated"), text("is_updatable")), () -> columns(rels)));
        t.put("views", RowsTable.empty(List.of(text("table_catalog"), text("table_schema"), text("table_name"),
                text("view_definition"))));
        t.put("table_constraints", RowsTable.empty(List.of(text("constraint_catalog"), text("constraint_schema"),
                text("constraint_name"), text("table_catalog"), text("table_schema"), text("table_name"),
                text("constraint_type"))));
        t.put("key_column_usage", RowsTable.empty(List.of(text("constraint_catalog"), text("constraint_schema"),
                text("constraint_name"), text("table_catalog"), text("table_schema"), text("table_name"),
                text("column_name"), int4("ordinal_position"))));
        return t;
    }

    private static List<Object[]> columns(Relations rels) {
        List<Object[]> rows = new ArrayList<>();
        for (Relations.Rel r : rels.all()) {
            int n = 0;
            for (Col c : r.columns()) {
                PgTypes.TypeInfo ty = PgTypes.info(c.pgType());
                Integer precision = switch (c.pgType()) {
                    case PgTypes.INT2 -> 16;
                    case PgTypes.INT4, PgTypes.OID -> 32;
                    case PgTypes.INT8 -> 64;
                    case PgTypes.FLOAT4 -> 24;
                    case PgTypes.FLOAT8 -> 53;
                    case PgTypes.NUMERIC -> c.numericPrecision() < 0 ? null : c.numericPrecision();
                    default -> null;
                };
                boolean decimal = c.pgType() == PgTypes.NUMERIC;
                rows.add(new Object[] {rels.database, r.schema(), r.name(), c.name(), ++n, null,
                    c.nullable() ? "YES" : "NO", ty == null ? "text" : ty.formatted(), null, null, precision,
                    precision == null ? null : decimal ? 10 : 2, precision == null || c.pgType() == PgTypes.FLOAT4
                        || c.pgType() == PgTypes.FLOAT8 ? null : decimal ? c.numericScale() : 0,
                    c.pgType() == PgTypes.TIMESTAMP ? 6 : null, rels.database, "pg_catalog",
                    ty == null ? "text" : ty.name(), "NO", "NEVER", r.kind().equals("stream") ? "YES" : "NO"});
            }
        }
        return rows;
    }
}
