package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.apache.calcite.linq4j.function.NonDeterministic;
import org.apache.calcite.linq4j.function.Parameter;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.ScannableTable;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;
import org.apache.calcite.schema.impl.TableFunctionImpl;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Postgres' catalog and session functions that clients call (psql's {@code \d}, pgjdbc's DatabaseMetaData, BI
 * tools), as Calcite user-defined functions. Every public static method is registered under its name (lower case;
 * a trailing {@code _} is dropped, for names Java reserves). They read the query's {@link Relations}, which
 * {@link QueryEngine} sets for the thread that runs the query.
 */
public final class PgFunctions {
    static final ThreadLocal<Relations> CURRENT = new ThreadLocal<>();
    static final String VERSION = "PostgreSQL 15.0 (Coilgun 0.1.0) on Java, exact sliding-window metrics over Kafka";

    private PgFunctions() {
    }

    /** Registers every function in {@code schema}. */
    static void register(SchemaPlus schema) {
        for (Class<?> functions : List.of(PgFunctions.class, PgAccessFunctions.class)) {
            register(schema, functions);
        }
    }

    /** Each public static method of {@code functions} as a function of its (lower case) name. */
    private static void register(SchemaPlus schema, Class<?> functions) {
        for (Method m : functions.getMethods()) {
            if (Modifier.isStatic(m.getModifiers()) && m.getDeclaringClass() == functions) {
                String name = m.getName().toLowerCase(Locale.ROOT);
                name = name.endsWith("_") ? name.substring(0, name.length() - 1) : name;
                if (Table.class.isAssignableFrom(m.getReturnType())) {
                    schema.add(name, TableFunctionImpl.create(m));
                } else if (m.getReturnType() == List.class
                        || Arrays.asList(m.getParameterTypes()).contains(List.class)) {
                    // Calcite derives no element type from a List: these are arrays of text
                    Function<RelDataTypeFactory, RelDataType> textArray = types ->
                            types.createTypeWithNullability(types.createArrayType(
                                    types.createSqlType(SqlTypeName.VARCHAR), -1), true);
                    List<Function<RelDataTypeFactory, RelDataType>> params = new ArrayList<>();
                    for (Class<?> p : m.getParameterTypes()) {
                        params.add(p == List.class ? textArray : null);
                    }
                    schema.add(name, new TypedFunction(m, m.getReturnType() == List.class ? textArray : null, params));
                } else {
                    schema.add(name, ScalarFunctionImpl.create(m));
                }
            }
        }
    }

    static Relations rels() {
        Relations r = CURRENT.get();
        if (r == null) {
            throw new IllegalStateException("no query running on this thread");
        }
        return r;
    }

    public static String version() {
        return VERSION;
    }

    public static String current_database() {
        return rels().database;
    }

    /** {@code current_schema}, see {@link io.coilgun.sql.parser.PgSyntax#CURRENT_SCHEMA}. */
    public static String pgcurschema() {
        return "public";
    }

    /** {@code current_user}, see {@link io.coilgun.sql.parser.PgSyntax#CURRENT_USER}. */
    public static String pgcuruser() {
        return rels().user;
    }

    /** {@code session_user}. */
    public static String pgsessuser() {
        return rels().user;
    }

    /** {@code current_catalog}: the database. */
    public static String pgcurcatalog() {
        return rels().database;
    }

    public static List<String> current_schemas(Boolean implicit) {
        return Boolean.TRUE.equals(implicit) ? List.of("pg_catalog", "public") : List.of("public");
    }

    public static Boolean pg_table_is_visible(Integer oid) {
        Relations.Rel r = oid == null ? null : rels().byOid(oid);
        return r != null && (r.namespace() == Relations.PUBLIC || r.namespace() == Relations.PG_CATALOG);
    }

    public static Boolean pg_type_is_visible(Integer oid) {
        return true;
    }

    public static Boolean pg_collation_is_visible(Integer oid) {
        return true;
    }

    public static Boolean pg_function_is_visible(Integer oid) {
        return true;
    }

    public static String pg_encoding_to_char(Integer encoding) {
        return "UTF8";
    }

    /** Arrays are shown as text in Coilgun's catalog: the text itself. */
    public static String array_to_string(String array, String separator) {
        return array;
    }

    /** The upper bound of a one-dimensional array (Coilgun's catalog arrays are text: NULL). */
    public static Integer array_upper(List<String> array, Integer dimension) {
        if (array != null && Integer.valueOf(1).equals(dimension)) {
            List<String> list = array;
            return list.isEmpty() ? null : list.size();
        }
        return null;
    }

    /** The lower bound of a one-dimensional array: 1 (NULL for an empty array or another dimension). */
    public static Integer array_lower(List<String> array, Integer dimension) {
        return array != null && !array.isEmpty() && Integer.valueOf(1).equals(dimension) ? 1 : null;
    }

    /** The length of a one-dimensional array (NULL for an empty array or another dimension). */
    public static Integer array_length(List<String> array, Integer dimension) {
        return array_upper(array, dimension);
    }

    /** {@code string_to_array(text, delimiter)}: the pieces between delimiters (a NULL delimiter: each character). */
    public static List<String> string_to_array(String text, String delimiter) {
        if (text == null) {
            return null;
        }
        List<String> pieces = new ArrayList<>();
        if (text.isEmpty()) {
            return pieces;
        }
        if (delimiter == null) {
            text.codePoints().forEach(c -> pieces.add(new String(Character.toChars(c))));
            return pieces;
        }
        if (delimiter.isEmpty()) {
            pieces.add(text);
            return pieces;
        }
        int from = 0;
        for (int at; (at = text.indexOf(delimiter, from)) >= 0; from = at + delimiter.length()) {
            pieces.add(text.substring(from, at));
        }
        pieces.add(text.substring(from));
        return pieces;
    }

    /**
     * {@code parse_ident('schema.table')}: the parts of a qualified name, unquoted (quoted parts keep their case,
     * the others are folded to lower case); 22P02 for a malformed name.
     */
    public static List<String> parse_ident(String name) {
        if (name == null) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        int i = 0;
        int n = name.length();
        while (true) {
            while (i < n && Character.isWhitespace(name.charAt(i))) {
                i++;
            }
            StringBuilder part = new StringBuilder();
            if (i < n && name.charAt(i) == '"') {
                for (i++; i < n; i++) {
                    char c = name.charAt(i);
                    if (c == '"' && i + 1 < n && name.charAt(i + 1) == '"') {
                        part.append('"');
                        i++;
                    } else if (c == '"') {
                        break;
                    } else {
                        part.append(c);
                    }
                }
                if (i >= n) {
                    throw new CoilgunException(SqlState.INVALID_TEXT_REPRESENTATION, "string is not a valid "
                            + "identifier: \"" + name + "\"", 0);
                }
                i++;
            } else {
                while (i < n && name.charAt(i) != '.' && !Character.isWhitespace(name.charAt(i))) {
                    part.append(Character.toLowerCase(name.charAt(i++)));
                }
            }
            if (part.length() == 0) {
                throw new CoilgunException(SqlState.INVALID_TEXT_REPRESENTATION, "string is not a valid identifier: "
                        + "\"" + name + "\"", 0);
            }
            parts.add(part.toString());
            while (i < n && Character.isWhitespace(name.charAt(i))) {
                i++;
            }
            if (i >= n) {
                return parts;
            }
            if (name.charAt(i) != '.') {
                throw new CoilgunException(SqlState.INVALID_TEXT_REPRESENTATION, "string is not a valid identifier: "
                        + "\"" + name + "\"", 0);
            }
            i++;
        }
    }

    /**
     * A value cast to {@code regclass} and then to an oid or a number: its oid, whether it was an oid already or a
     * name (Metabase: {@code CAST(CAST(format('%I.%I', …) AS REGCLASS) AS OID)}).
     */
    public static Integer pg_regclass_to_oid(Object value) {
        if (value == null) {
            return null;
        }
        return value instanceof Number n ? Integer.valueOf(n.intValue()) : pg_regclass_oid(value.toString());
    }

    /** {@code generate_series(start, stop)}: the integers from start to stop, as a table. */
    public static ScannableTable generate_series(Integer start, Integer stop) {
        return new SeriesTable(start, stop);
    }

    public static String format_type(Integer type, Integer typmod) {
        if (type == null) {
            return null;
        }
        PgTypes.TypeInfo t = PgTypes.info(type);
        if (t != null && type == PgTypes.NUMERIC && typmod != null && typmod >= 4) {
            return "numeric(" + ((typmod - 4) >> 16) + "," + ((typmod - 4) & 0xffff) + ")"; // as Postgres writes it
        }
        return t == null ? "???" : t.formatted();
    }

    public static String pg_get_expr(@Parameter(name = "expression") String expression,
            @Parameter(name = "relation") Integer relation,
            @Parameter(name = "pretty", optional = true) Boolean pretty) {
        return null;
    }

    public static String pg_get_indexdef(Integer index, Integer column, Boolean pretty) {
        return null;
    }

    public static String pg_get_statisticsobjdef_columns(Integer oid) {
        return null;
    }

    public static String obj_description(@Parameter(name = "oid") Integer oid,
            @Parameter(name = "catalog", optional = true) String catalog) {
        return null;
    }

    public static String col_description(Integer oid, Integer column) {
        return null;
    }

    public static String shobj_description(Integer oid, String catalog) {
        return null;
    }

    public static Boolean pg_relation_is_publishable(String relation) {
        return false;
    }

    public static Boolean has_schema_privilege(String schema, String privilege) {
        return true;
    }

    public static Boolean has_schema_privilege(String user, String schema, String privilege) {
        return true;
    }

    /** Whether the session's user holds the privilege on the table or any of its columns: on the table. */
    public static Boolean has_any_column_privilege(String table, String privilege) {
        return PgAccessFunctions.has_table_privilege(table, privilege);
    }

    public static Boolean has_any_column_privilege(String user, String table, String privilege) {
        return PgAccessFunctions.has_table_privilege(user, table, privilege);
    }

    public static Boolean has_database_privilege(String database, String privilege) {
        return true;
    }

    /** The session's value of a setting (what SHOW answers); 42704 for a name Postgres would not know either. */
    public static String current_setting(@Parameter(name = "name") String name,
            @Parameter(name = "missing_ok", optional = true) Boolean missingOk) {
        String value = rels().session.setting(name);
        if (value == null && !Boolean.TRUE.equals(missingOk)) {
            throw new CoilgunException(SqlState.UNDEFINED_OBJECT,
                    "unrecognized configuration parameter \"" + name + "\"", 0);
        }
        return value;
    }

    /**
     * Postgres' {@code format}: {@code %s}, {@code %I} (an identifier, quoted if needed), {@code %L} (a literal); up
     * to five arguments, each read as text (Calcite casts other types to it; overloads of type ANY are ambiguous).
     */
    public static String format(String format) {
        return PgFormat.format(format);
    }

    public static String format(String format, String a) {
        return PgFormat.format(format, a);
    }

    public static String format(String format, String a, String b) {
        return PgFormat.format(format, a, b);
    }

    public static String format(String format, String a, String b, String c) {
        return PgFormat.format(format, a, b, c);
    }

    public static String format(String format, String a, String b, String c, String d) {
        return PgFormat.format(format, a, b, c, d);
    }

    public static String format(String format, String a, String b, String c, String d, String e) {
        return PgFormat.format(format, a, b, c, d, e);
    }

    /** A table's partition key: NULL, as Postgres answers for a table that is not partitioned (none here is). */
    public static String pg_get_partkeydef(Integer oid) {
        return null;
    }

    public static String pg_get_viewdef(@Parameter(name = "oid") Integer oid,
            @Parameter(name = "pretty", optional = true) Boolean pretty) {
        return null;
    }

    /**
     * A constraint's definition: NULL (Coilgun has no constraints). {@code pretty} is of any type: SQLAlchemy passes
     * it as $n inside a CASE, where Calcite types the call before it could infer the parameter's type.
     */
    public static String pg_get_constraintdef(@Parameter(name = "oid") Integer oid,
            @Parameter(name = "pretty", optional = true) Object pretty) {
        return null;
    }

    /**
     * {@code json_build_object(key, value, …)}, up to eight pairs: a JSON object as text (keys as text, numbers and
     * booleans bare, everything else a string). One function with optional pairs, so $n arguments are typed.
     */
    public static String json_build_object(@Parameter(name = "k1") String k1, @Parameter(name = "v1") Object v1,
            @Parameter(name = "k2", optional = true) String k2, @Parameter(name = "v2", optional = true) Object v2,
            @Parameter(name = "k3", optional = true) String k3, @Parameter(name = "v3", optional = true) Object v3,
            @Parameter(name = "k4", optional = true) String k4, @Parameter(name = "v4", optional = true) Object v4,
            @Parameter(name = "k5", optional = true) String k5, @Parameter(name = "v5", optional = true) Object v5,
            @Parameter(name = "k6", optional = true) String k6, @Parameter(name = "v6", optional = true) Object v6,
            @Parameter(name = "k7", optional = true) String k7, @Parameter(name = "v7", optional = true) Object v7,
            @Parameter(name = "k8", optional = true) String k8, @Parameter(name = "v8", optional = true) Object v8) {
        Object[] pairs = {k1, v1, k2, v2, k3, v3, k4, v4, k5, v5, k6, v6, k7, v7, k8, v8};
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < pairs.length; i += 2) {
            if (pairs[i] == null) {
                continue; // an omitted pair (a NULL key is an error in Postgres)
            }
            b.append(b.length() > 1 ? ", " : "").append(jsonString(pairs[i].toString())).append(" : ");
            Object v = pairs[i + 1];
            b.append(v == null ? "null" : v instanceof Number || v instanceof Boolean ? v.toString()
                    : jsonString(v.toString()));
        }
        return b.append('}').toString();
    }

    private static String jsonString(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /** The sequence behind a serial column: none (Coilgun has no sequences). */
    public static String pg_get_serial_sequence(String table, String column) {
        return null;
    }

    /** The oid of the type named {@code name}, or NULL when there is none (Postgres: {@code to_regtype}). */
    public static Integer to_regtype(String name) {
        return orNull(PgFunctions::pg_regtype_oid, name);
    }

    /** The oid of the relation named {@code name}, or NULL when there is none. */
    public static Integer to_regclass(String name) {
        return orNull(PgFunctions::pg_regclass_oid, name);
    }

    /** {@code lookup} of {@code name}, NULL where it fails (an unknown name, as {@code to_reg*} answers). */
    private static Integer orNull(Function<String, Integer> lookup, String name) {
        try {
            return name == null ? null : lookup.apply(name);
        } catch (CoilgunException e) {
            return null;
        }
    }

    public static Long pg_total_relation_size(Integer oid) {
        return oid == null ? null : 0L;
    }

    public static Long pg_relation_size(Integer oid) {
        return oid == null ? null : 0L;
    }

    public static Long pg_table_size(Integer oid) {
        return oid == null ? null : 0L;
    }

    public static Long pg_indexes_size(Integer oid) {
        return oid == null ? null : 0L;
    }

    /** Postgres' {@code pg_size_pretty}: bytes below 10 kB, else the largest unit (kB … PB) under 20,480, rounded. */
    public static String pg_size_pretty(Long bytes) {
        if (bytes == null) {
            return null;
        }
        if (Math.abs(bytes) < 10 * 1024) {
            return bytes + " bytes";
        }
        long halves = bytes >> 9; // in half units, to round half up as Postgres does
        for (String unit : new String[] {"kB", "MB", "GB", "TB"}) {
            if (Math.abs(halves) < 20 * 1024 - 1) {
                return (halves >= 0 ? (halves + 1) / 2 : (halves - 1) / 2) + " " + unit;
            }
            halves >>= 10;
        }
        return (halves >= 0 ? (halves + 1) / 2 : (halves - 1) / 2) + " PB";
    }

    /** The session's process id, as the client's BackendKeyData gave it. */
    public static Integer pg_backend_pid() {
        return rels().session.backendPid();
    }

    /**
     * Sleeps for {@code seconds}, until the statement is canceled or its statement_timeout ends it (57014): what
     * clients and tests use to try a cancel. Never constant-folded (Calcite would run it while planning).
     */
    @NonDeterministic
    public static String pg_sleep(BigDecimal seconds) {
        Relations rels = rels();
        long deadline = System.nanoTime() + (long) (Math.max(0, seconds == null ? 0 : seconds.doubleValue()) * 1e9);
        try {
            for (long left; (left = deadline - System.nanoTime()) > 0; ) {
                if (rels.cancel.canceled()) {
                    throw new CoilgunException(SqlState.QUERY_CANCELED, "canceling statement due to user request", 0);
                }
                Thread.sleep(Math.max(1, Math.min(20, left / 1_000_000)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoilgunException(SqlState.QUERY_CANCELED, "canceling statement due to user request", 0);
        }
        return null; // void
    }

    public static String quote_ident(String name) {
        if (name == null) {
            return null;
        }
        return name.matches("[a-z_][a-z0-9_$]*") ? name : "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /** {@code 'name'::regclass}: the relation's oid. */
    public static Integer pg_regclass_oid(String name) {
        if (name == null) {
            return null;
        }
        if (name.trim().matches("\\d+")) {
            return Integer.valueOf(name.trim()); // an oid in digits, as Postgres' regclassin reads it
        }
        Relations.Rel r = rels().byName(name);
        if (r == null) {
            throw new CoilgunException(SqlState.UNDEFINED_TABLE, "relation \"" + name + "\" does not exist", 0);
        }
        return r.oid();
    }

    /** {@code oid::regclass}: the relation's name (qualified when not in public), or the number when unknown. */
    public static String pg_regclass_name(Integer oid) {
        if (oid == null) {
            return null;
        }
        Relations.Rel r = rels().byOid(oid);
        // qualified only outside the search path (public, then pg_catalog), as Postgres prints it
        return r == null ? String.valueOf(oid)
                : r.namespace() == Relations.PUBLIC || r.namespace() == Relations.PG_CATALOG ? r.name()
                : r.schema() + "." + r.name();
    }

    /** {@code 'name'::regtype}: the type's oid; the name folded to lower case unless quoted, as Postgres reads it. */
    public static Integer pg_regtype_oid(String name) {
        String type = name.trim();
        if (type.toLowerCase(Locale.ROOT).startsWith("pg_catalog.")) {
            type = type.substring(11);
        }
        PgTypes.TypeInfo t = PgTypes.byName(type.startsWith("\"") ? unquote(type) : type.toLowerCase(Locale.ROOT));
        if (t == null) {
            throw new CoilgunException(SqlState.UNDEFINED_OBJECT, "type \"" + name + "\" does not exist", 0);
        }
        return t.oid();
    }

    public static String pg_regtype_name(Integer oid) {
        return oid == null ? null : oid == 0 ? "-" : format_type(oid, -1);
    }

    public static Integer pg_regnamespace_oid(String name) {
        List<String> parts = Relations.nameParts(name);
        for (Relations.Namespace n : Relations.NAMESPACES) {
            if (parts.size() == 1 && n.name().equals(parts.get(0))) {
                return n.oid();
            }
        }
        throw new CoilgunException(SqlState.UNDEFINED_OBJECT, "schema \"" + name + "\" does not exist", 0);
    }

    public static String pg_regnamespace_name(Integer oid) {
        for (Relations.Namespace n : Relations.NAMESPACES) {
            if (oid != null && n.oid() == oid) {
                return n.name();
            }
        }
        return oid == null ? null : String.valueOf(oid);
    }

    public static Integer pg_regrole_oid(String name) {
        return Relations.OWNER;
    }

    public static String pg_regrole_name(Integer oid) {
        return rels().user;
    }

    private static String unquote(String name) {
        return name.length() > 1 && name.startsWith("\"") && name.endsWith("\"")
                ? name.substring(1, name.length() - 1).replace("\"\"", "\"") : name;
    }
}
