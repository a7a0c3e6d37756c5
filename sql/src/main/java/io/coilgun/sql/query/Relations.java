package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.schema.Table;

/**
 * Every relation one query can see, with the oids the Postgres catalog shows for it: streams and metrics in schema
 * {@code public}, the system tables in {@code coilgun}, and {@code pg_catalog} and {@code information_schema}
 * themselves. Built per query from the catalog, so the catalog tables always agree with the relations.
 */
final class Relations {
    static final int PG_CATALOG = 11;
    static final int PUBLIC = 2200;
    static final int INFORMATION_SCHEMA = 13000;
    static final int COILGUN = 16383;
    /** The one role: every object is owned by it. */
    static final int OWNER = 10;
    static final int DATABASE = 16381;

    /** A namespace (schema) and its oid. */
    record Namespace(int oid, String name) {
    }

    static final List<Namespace> NAMESPACES = List.of(new Namespace(PG_CATALOG, "pg_catalog"),
            new Namespace(PUBLIC, "public"), new Namespace(INFORMATION_SCHEMA, "information_schema"),
            new Namespace(COILGUN, "coilgun"));

    /**
     * One relation.
     *
     * @param kind what the catalog calls it: {@code stream}, {@code metric}, {@code system table}
     */
    record Rel(int oid, int namespace, String name, String kind, List<Col> columns, Table table) {
        String schema() {
            for (Namespace n : NAMESPACES) {
                if (n.oid == namespace) {
                    return n.name;
                }
            }
            return "public";
        }
    }

    final String user;
    final String database;
    private final Map<String, Rel> byQualifiedName = new LinkedHashMap<>();
    private final List<Rel> all = new ArrayList<>();

    /** The session the query runs for (its settings, its process id). */
    final QuerySession session;

    /** By the ordinal of each parameter marker: whether the client sent its value as a numeric. */
    boolean[] numericParameters = new boolean[0];

    /** Stops the query early (a cancel, a statement timeout): what a long function such as pg_sleep watches. */
    QueryEngine.Cancel cancel = new QueryEngine.Cancel();


    /** What the node holds (roles and privileges among it); null in a relations list made without a node. */
    QueryData data;

    /** The oid of a role in pg_roles (the session's superuser, as the catalog's owner of everything, is 10). */
    int roleOid(String role) {
        return role.equals(user) ? OWNER : 16384 + Math.floorMod(("role." + role).hashCode(), 1_000_000_000);
    }

    Relations(String user, String database, QuerySession session) {
        this.user = user;
        this.database = database;
        this.session = session;
    }

    void add(int namespace, String name, String kind, List<Col> columns, Table table) {
        int oid;
        if (namespace == PUBLIC) {
            oid = 16384 + Math.floorMod(("public." + name).hashCode(), 1_000_000_000);
        } else {
            oid = 1000 + all.size(); // system relations are defined in a fixed order
        }
        Rel rel = new Rel(oid, namespace, name, kind, columns, table);
        all.add(rel);
        byQualifiedName.put(rel.schema() + "." + name, rel);
    }

    List<Rel> all() {
        return all;
    }

    List<Rel> in(int namespace) {
        return all.stream().filter(r -> r.namespace() == namespace).toList();
    }

    Rel byOid(int oid) {
        for (Rel r : all) {
            if (r.oid() == oid) {
                return r;
            }
        }
        return null;
    }

    /**
     * The relation a text names, read as Postgres reads a {@code regclass} ({@code has_table_privilege}'s, {@code
     * to_regclass}'s): {@code name} (searched in public, then pg_catalog) or {@code schema.name}, each part folded to
     * lower case unless double-quoted ({@code '"coilgun"."streams"'}, {@code 'PUBLIC.Payments'}); null when there
     * is none.
     *
     * @throws CoilgunException 42602 for a text that is not a name, 0A000 for another database's relation
     */
    Rel byName(String text) {
        List<String> parts = nameParts(text);
        if (parts.size() == 1) {
            Rel r = byQualifiedName.get("public." + parts.get(0));
            return r != null ? r : byQualifiedName.get("pg_catalog." + parts.get(0));
        }
        if (parts.size() == 3 && !parts.get(0).equals(database)) {
            throw new CoilgunException(SqlState.FEATURE_NOT_SUPPORTED, "cross-database references are not "
                    + "implemented: " + text, 0);
        }
        if (parts.size() > 3) {
            throw new CoilgunException(SqlState.SYNTAX_ERROR, "improper relation name (too many dotted names): "
                    + text, 0);
        }
        return byQualifiedName.get(parts.get(parts.size() - 2) + "." + parts.get(parts.size() - 1));
    }

    /** The parts of a qualified name as Postgres reads it ({@code parse_ident}); 42602 when it is not one. */
    static List<String> nameParts(String text) {
        try {
            return PgFunctions.parse_ident(text);
        } catch (CoilgunException e) {
            throw new CoilgunException(SqlState.INVALID_NAME, "invalid name syntax", 0);
        }
    }

    /** The columns a stream's table shows: the stream's own. */
    static List<Col> streamColumns(StreamDef s) {
        List<Col> cols = new ArrayList<>();
        for (StreamColumn c : s.columns()) {
            cols.add(column(c, !c.notNull()));
        }
        return cols;
    }

    private static Col column(StreamColumn c, boolean nullable) {
        return c.type() == ColumnType.NUMERIC ? Col.numeric(c.name(), c.precision(), c.scale(), nullable)
                : new Col(c.name(), PgTypes.sql(c.type()), PgTypes.of(c.type()), nullable);
    }

    /** The columns a metric's table shows: its group-by columns, its aggregations, and the stream time. */
    static List<Col> metricColumns(StreamDef s, MetricDef m) {
        List<Col> cols = new ArrayList<>();
        for (int g : m.groupBy()) {
            cols.add(column(s.column(g), true));
        }
        for (var a : m.aggregations()) {
            // an aggregate of varchar is text in Postgres (min, max, last, prev)
            int oid = a.resultType() == ColumnType.VARCHAR ? PgTypes.TEXT : PgTypes.of(a.resultType());
            cols.add(new Col(a.name(), PgTypes.sql(a.resultType()), oid, true));
        }
        cols.add(Col.timestamp(MetricTable.STREAM_TIME));
        return cols;
    }
}
