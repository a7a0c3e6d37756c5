package io.coilgun.sql.query;

import static io.coilgun.sql.query.Col.bool;
import static io.coilgun.sql.query.Col.chr;
import static io.coilgun.sql.query.Col.float4;
import static io.coilgun.sql.query.Col.int2;
import static io.coilgun.sql.query.Col.int4;
import static io.coilgun.sql.query.Col.int8;
import static io.coilgun.sql.query.Col.name;
import static io.coilgun.sql.query.Col.oid;
import static io.coilgun.sql.query.Col.text;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The {@code pg_catalog} relations psql, pgjdbc and BI tools read, answered from {@link Relations}: streams, metrics
 * and system tables are ordinary tables ({@code relkind 'r'}) owned by the one role. Relations Coilgun has nothing
 * for (indexes, constraints, policies, publications, …) exist with Postgres' columns and no rows, so clients'
 * queries over them run and find nothing. Array columns are shown as text ({@code NULL}).
 */
final class PgCatalog {
    /** The roles the session sees (a relations list made without a node: its user, a superuser). */
    private static List<QueryData.Role> roles(Relations rels) {
        return rels.data == null ? List.of(new QueryData.Role(rels.user, true, true)) : rels.data.roles(rels.user);
    }

    private PgCatalog() {
    }

    /** The relations in definition order (their oids follow it): name and table built over {@code rels}. */
    static Map<String, RowsTable> tables(Relations rels) {
        Map<String, RowsTable> t = new LinkedHashMap<>();
        t.put("pg_namespace", new RowsTable(List.of(oid("oid"), name("nspname"), oid("nspowner"), text("nspacl")),
                () -> map(Relations.NAMESPACES, n -> new Object[] {n.oid(), n.name(), Relations.OWNER, null})));
        t.put("pg_class", new RowsTable(List.of(oid("oid"), name("relname"), oid("relnamespace"), oid("reltype"),
                oid("reloftype"), oid("relowner"), oid("relam"), oid("relfilenode"), oid("reltablespace"),
                int4("relpages"), float4("reltuples"), int4("relallvisible"), oid("reltoastrelid"), bool("relhasindex"),
                bool("relisshared"), chr("relpersistence"), chr("relkind"), int2("relnatts"), int2("relchecks"),
                bool("relhasrules"), bool("relhastriggers"), bool("relhassubclass"), bool("relrowsecurity"),
                bool("relforcerowsecurity"), bool("relispopulated"), chr("relreplident"), bool("relispartition"),
                oid("relrewrite"), text("relacl"), text("reloptions"), text("relpartbound")),
                () -> map(rels.all(), r -> new Object[] {r.oid(), r.name(), r.namespace(), 0, 0, Relations.OWNER, 2,
                    r.oid(), 0, 0, -1f, 0, 0, false, false, "p", "r", (short) r.columns().size(), (short) 0, false,
                    false, false, false, false, true, "d", false, 0, null, null, null})));
        t.put("pg_attribute", new RowsTable(List.of(oid("attrelid"), name("attname"), oid("atttypid"),
                int4("attstattarget"), int2("attlen"), int2("attnum"), int4("attndims"), int4("attcacheoff"),
                int4("atttypmod"), bool("attbyval"), chr("attalign"), chr("attstorage"), chr("attcompression"),
                bool("attnotnull"), bool("atthasdef"), bool("atthasmissing"), chr("attidentity"), chr("attgenerated"),
                bool("attisdropped"), bool("attislocal"), int4("attinhcount"), oid("attcollation"), text("attacl"),
                text("attoptions"), text("attfdwoptions")), () -> attributes(rels)));
        t.put("pg_type", new RowsTable(List.of(oid("oid"), name("typname"), oid("typnamespace"), oid("typowner"),
                int2("typlen"), bool("typbyval"), chr("typtype"), chr("typcategory"), bool("typispreferred"),
                bool("typisdefined"), chr("typdelim"), oid("typrelid"), oid("typelem"), oid("typarray"),
                text("typinput"), text("typoutput"), text("typreceive"), text("typsend"), text("typmodin"),
                text("typmodout"), text("typanalyze"), chr("typalign"), chr("typstorage"), bool("typnotnull"),
                oid("typbasetype"), int4("typtypmod"), int4("typndims"), oid("typcollation"), text("typdefaultbin"),
                text("typdefault"), text("typacl")), () -> map(List.of(PgTypes.ALL), ty -> new Object[] {ty.oid(),
                    ty.name(), Relations.PG_CATALOG, Relations.OWNER, (short) ty.length(), ty.length() > 0
                        && ty.length() <= 8, "b", ty.category(), false, true, ",", 0, 0, 0, ty.name() + "in",
                    ty.name() + "out", ty.name() + "recv", ty.name() + "send", "-", "-", "-", "i", "p", false, 0, -1, 0,
                    ty.category().equals("S") ? 100 : 0, null, null, null})));
        t.put("pg_database", new RowsTable(List.of(oid("oid"), name("datname"), oid("datdba"), int4("encoding"),
                chr("datlocprovider"), bool("datistemplate"), bool("datallowconn"), int4("datconnlimit"),
                oid("dattablespace"), text("datcollate"), text("datctype"), text("daticulocale"),
                text("datcollversion"), text("datacl")), () -> List.<Object[]>of(new Object[] {Relations.DATABASE,
                    rels.database, Relations.OWNER, 6, "c", false, true, -1, 1663, "C", "C", null, null, null})));
        t.put("pg_am", new RowsTable(List.of(oid("oid"), name("amname"), text("amhandler"), chr("amtype")),
                () -> List.<Object[]>of(new Object[] {2, "heap", "heap_tableam_handler", "t"})));
        t.put("pg_roles", new RowsTable(List.of(oid("oid"), name("rolname"), bool("rolsuper"), bool("rolinherit"),
                bool("rolcreaterole"), bool("rolcreatedb"), bool("rolcanlogin"), bool("rolreplication"),
                int4("rolconnlimit"), text("rolpassword"), Col.timestamp("rolvaliduntil"), bool("rolbypassrls"),
                text("rolconfig")), () -> map(roles(rels), r -> new Object[] {rels.roleOid(r.name()), r.name(),
                    r.superuser(), true, r.superuser(), r.superuser(), r.login(), false, -1, "********", null,
                    r.superuser(), null})));
        t.put("pg_user", new RowsTable(List.of(name("usename"), oid("usesysid"), bool("usecreatedb"),
                bool("usesuper"), bool("userepl"), bool("usebypassrls"), text("passwd"), Col.timestamp("valuntil"),
                text("useconfig")), () -> map(roles(rels).stream().filter(QueryData.Role::login).toList(),
                    r -> new Object[] {r.name(), rels.roleOid(r.name()), r.superuser(), r.superuser(), false,
                        r.superuser(), "********", null, null})));
        // no role is a member of another (GRANT role TO role is not supported): psql's \du reads it
        t.put("pg_auth_members", new RowsTable(List.of(oid("oid"), oid("roleid"), oid("member"), oid("grantor"),
                bool("admin_option")), List::<Object[]>of));
        t.put("pg_tables", new RowsTable(List.of(name("schemaname"), name("tablename"), name("tableowner"),
                name("tablespace"), bool("hasindexes"), bool("hasrules"), bool("hastriggers"), bool("rowsecurity")),
                () -> map(rels.all(), r -> new Object[] {r.schema(), r.name(), rels.user, null, false, false, false,
                    false})));
        // Statistics of use: Coilgun counts none per relation (coilgun.statistics has the events per task).
        t.put("pg_stat_user_tables", new RowsTable(List.of(oid("relid"), name("schemaname"), name("relname"),
                int8("seq_scan"), int8("seq_tup_read"), int8("idx_scan"), int8("idx_tup_fetch"), int8("n_tup_ins"),
                int8("n_tup_upd"), int8("n_tup_del"), int8("n_tup_hot_upd"), int8("n_live_tup"), int8("n_dead_tup"),
                int8("n_mod_since_analyze"), int8("n_ins_since_vacuum"), Col.timestamp("last_vacuum"),
                Col.timestamp("last_autovacuum"), Col.timestamp("last_analyze"), Col.timestamp("last_autoanalyze"),
                int8("vacuum_count"), int8("autovacuum_count"), int8("analyze_count"), int8("autoanalyze_count")),
                () -> map(rels.all().stream().filter(r -> r.namespace() == Relations.PUBLIC).toList(),
                        r -> new Object[] {r.oid(), r.schema(), r.name(), 0L, 0L, null, null, 0L, 0L, 0L, 0L, 0L,
                            0L, 0L, 0L, null, null, null, null, 0L, 0L, 0L, 0L})));
        t.put("pg_settings", new RowsTable(List.of(text("name"), text("setting"), text("unit"), text("category"),
                text("short_desc"), text("context"), text("vartype"), text("source")), List::of));
        // Relations Coilgun never has rows in.
        t.put("pg_description", RowsTable.empty(List.of(oid("objoid"), oid("classoid"), int4("objsubid"),
                text("description"))));
        t.put("pg_shdescription", RowsTable.empty(List.of(oid("objoid"), oid("classoid"), text("description"))));
        t.put("pg_attrdef", RowsTable.empty(List.of(oid("oid"), oid("adrelid"), int2("adnum"), text("adbin"))));
        t.put("pg_collation", RowsTable.empty(List.of(oid("oid"), name("collname"), oid("collnamespace"),
                oid("collowner"), chr("collprovider"), bool("collisdeterministic"), int4("collencoding"),
                text("collcollate"), text("collctype"))));
        t.put("pg_index", RowsTable.empty(List.of(oid("indexrelid"), oid("indrelid"), int2("indnatts"),
                int2("indnkeyatts"), bool("indisunique"), bool("indisprimary"), bool("indisexclusion"),
                bool("indimmediate"), bool("indisclustered"), bool("indisvalid"), bool("indisready"),
                bool("indislive"), bool("indisreplident"), text("indkey"), text("indcollation"), text("indclass"),
                text("indoption"), text("indexprs"), text("indpred"))));
        t.put("pg_constraint", RowsTable.empty(List.of(oid("oid"), name("conname"), oid("connamespace"),
                chr("contype"), bool("condeferrable"), bool("condeferred"), bool("convalidated"), oid("conrelid"),
                oid("contypid"), oid("conindid"), oid("conparentid"), oid("confrelid"), chr("confupdtype"),
                chr("confdeltype"), chr("confmatchtype"), bool("conislocal"), int4("coninhcount"),
                bool("connoinherit"), text("conkey"), text("confkey"), text("conbin"))));
        t.put("pg_inherits", RowsTable.empty(List.of(oid("inhrelid"), oid("inhparent"), int4("inhseqno"),
                bool("inhdetachpending"))));
        t.put("pg_policy", RowsTable.empty(List.of(oid("oid"), name("polname"), oid("polrelid"), chr("polcmd"),
                bool("polpermissive"), text("polroles"), text("polqual"), text("polwithcheck"))));
        t.put("pg_statistic_ext", RowsTable.empty(List.of(oid("oid"), oid("stxrelid"), name("stxname"),
                oid("stxnamespace"), oid("stxowner"), int4("stxstattarget"), text("stxkeys"), text("stxkind"),
                text("stxexprs"))));
        t.put("pg_publication", RowsTable.empty(List.of(oid("oid"), name("pubname"), oid("pubowner"),
                bool("puballtables"), bool("pubinsert"), bool("pubupdate"), bool("pubdelete"), bool("pubtruncate"),
                bool("pubviaroot"))));
        t.put("pg_publication_rel", RowsTable.empty(List.of(oid("oid"), oid("prpubid"), oid("prrelid"),
                text("prqual"), text("prattrs"))));
        t.put("pg_publication_namespace", RowsTable.empty(List.of(oid("oid"), oid("pnpubid"), oid("pnnspid"))));
        t.put("pg_proc", RowsTable.empty(List.of(oid("oid"), name("proname"), oid("pronamespace"), oid("proowner"),
                oid("prolang"), chr("prokind"), bool("proretset"), oid("prorettype"), text("proargtypes"),
                text("proargnames"), text("prosrc"))));
        t.put("pg_trigger", RowsTable.empty(List.of(oid("oid"), oid("tgrelid"), name("tgname"), oid("tgfoid"),
                int2("tgtype"), chr("tgenabled"), bool("tgisinternal"), oid("tgconstraint"))));
        t.put("pg_rewrite", RowsTable.empty(List.of(oid("oid"), name("rulename"), oid("ev_class"), chr("ev_type"),
                chr("ev_enabled"), bool("is_instead"), text("ev_qual"), text("ev_action"))));
        t.put("pg_views", RowsTable.empty(List.of(name("schemaname"), name("viewname"), name("viewowner"),
                text("definition"))));
        t.put("pg_matviews", RowsTable.empty(List.of(name("schemaname"), name("matviewname"), name("matviewowner"),
                text("definition"))));
        t.put("pg_sequence", RowsTable.empty(List.of(oid("seqrelid"), oid("seqtypid"), int8("seqstart"),
                int8("seqincrement"), int8("seqmax"), int8("seqmin"), int8("seqcache"), bool("seqcycle"))));
        t.put("pg_depend", RowsTable.empty(List.of(oid("classid"), oid("objid"), int4("objsubid"),
                oid("refclassid"), oid("refobjid"), int4("refobjsubid"), chr("deptype"))));
        t.put("pg_opclass", RowsTable.empty(List.of(oid("oid"), oid("opcmethod"), name("opcname"),
                oid("opcnamespace"), oid("opcowner"), oid("opcfamily"), oid("opcintype"), bool("opcdefault"),
                oid("opckeytype"))));
        t.put("pg_extension", RowsTable.empty(List.of(oid("oid"), name("extname"), oid("extowner"),
                oid("extnamespace"), text("extversion"))));
        t.put("pg_enum", RowsTable.empty(List.of(oid("oid"), oid("enumtypid"), float4("enumsortorder"),
                name("enumlabel"))));
        t.put("pg_foreign_table", RowsTable.empty(List.of(oid("ftrelid"), oid("ftserver"), text("ftoptions"))));
        t.put("pg_tablespace", new RowsTable(List.of(oid("oid"), name("spcname"), oid("spcowner")),
                () -> List.<Object[]>of(new Object[] {1663, "pg_default", Relations.OWNER})));
        return t;
    }

    private static List<Object[]> attributes(Relations rels) {
        List<Object[]> rows = new ArrayList<>();
        for (Relations.Rel r : rels.all()) {
            short n = 0;
            for (Col c : r.columns()) {
                PgTypes.TypeInfo ty = PgTypes.info(c.pgType());
                rows.add(new Object[] {r.oid(), c.name(), c.pgType(), -1, (short) (ty == null ? -1 : ty.length()),
                    ++n, 0, -1, c.typmod(), false, "i", "p", "", !c.nullable(), false, false, "", "", false, true, 0,
                    ty != null && ty.category().equals("S") ? 100 : 0, null, null, null});
            }
        }
        return rows;
    }

    static <T> List<Object[]> map(List<T> items, Function<T, Object[]> row) {
        List<Object[]> rows = new ArrayList<>(items.size());
        for (T item : items) {
            rows.add(row.apply(item));
        }
        return rows;
    }
}
