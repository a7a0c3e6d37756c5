package io.coilgun.tests;

import io.coilgun.sql.query.QueryEngine;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every function Coilgun registers ({@link QueryEngine#functionNames()}) that PostgreSQL 15 has too, called with
 * untyped parameters over the wire (pgjdbc's {@code setObject(i, text, Types.OTHER)}: a Parse whose parameter types
 * are 0, as psycopg 3 sends its strings), against a server: its answer (the first row's first value as text) or its
 * SQLSTATE, for ClientConformanceIT to compare with Postgres' own.
 *
 * <p>The arguments: {@link #SAMPLES} where a function needs meaningful ones, else a sample of each argument type of the
 * shortest of Postgres' signatures whose types all have one. Window functions (which need OVER) are left out.
 */
final class FunctionSweep {
    /** An argument of each Postgres type, as text. */
    private static final Map<String, String> BY_TYPE = Map.ofEntries(Map.entry("text", "abc"),
            Map.entry("character varying", "abc"), Map.entry("character", "abc"), Map.entry("name", "coilgun"),
            Map.entry("integer", "3"), Map.entry("smallint", "3"), Map.entry("bigint", "3"),
            Map.entry("numeric", "2.5"), Map.entry("double precision", "0.5"), Map.entry("real", "0.5"),
            Map.entry("boolean", "true"), Map.entry("oid", "11"), Map.entry("regclass", "pg_class"),
            Map.entry("timestamp without time zone", "2026-01-02 10:30:15.25"), Map.entry("date", "2026-01-02"),
            Map.entry("\"any\"", "abc"), Map.entry("anyelement", "abc"), Map.entry("anycompatible", "abc"));

    /** The arguments of calls whose arguments mean something (a role, a privilege, a format, a field). */
    static final Map<String, List<String>> SAMPLES = Map.ofEntries(
            Map.entry("has_table_privilege", List.of("coilgun", "pg_class", "SELECT")),
            Map.entry("has_any_column_privilege", List.of("coilgun", "pg_class", "SELECT")),
            Map.entry("has_schema_privilege", List.of("coilgun", "public", "USAGE")),
            Map.entry("has_database_privilege", List.of("coilgun", "CONNECT")),
            Map.entry("pg_get_userbyid", List.of("10")),
            Map.entry("format_type", List.of("23", "-1")),
            Map.entry("pg_table_is_visible", List.of("1259")),
            Map.entry("date_trunc", List.of("hour", "2026-01-02 10:30:15")),
            Map.entry("date_part", List.of("hour", "2026-01-02 10:30:15")),
            Map.entry("to_char", List.of("2026-01-02 10:30:15", "YYYY-MM-DD")),
            Map.entry("to_date", List.of("2026-01-02", "YYYY-MM-DD")),
            Map.entry("to_timestamp", List.of("2026-01-02", "YYYY-MM-DD")),
            Map.entry("current_setting", List.of("server_encoding")),
            Map.entry("format", List.of("%s-%s", "a", "b")),
            Map.entry("concat", List.of("a", "b")),
            Map.entry("concat_ws", List.of(",", "a", "b")),
            Map.entry("string_to_array", List.of("a,b", ",")),
            Map.entry("parse_ident", List.of("public.\"Payments\"")),
            Map.entry("quote_ident", List.of("Payments")),
            Map.entry("to_regclass", List.of("\"pg_catalog\".\"pg_class\"")),
            Map.entry("to_regtype", List.of("integer")),
            Map.entry("split_part", List.of("a,b,c", ",", "2")),
            Map.entry("replace", List.of("abc", "b", "x")),
            Map.entry("translate", List.of("abc", "b", "x")),
            Map.entry("regexp_replace", List.of("abc", "b", "x")),
            Map.entry("lpad", List.of("ab", "4", "x")),
            Map.entry("rpad", List.of("ab", "4", "x")),
            Map.entry("substring", List.of("abcdef", "2", "3")),
            Map.entry("substr", List.of("abcdef", "2", "3")),
            Map.entry("position", List.of("c", "abc")),
            Map.entry("strpos", List.of("abc", "c")),
            Map.entry("pg_size_pretty", List.of("123456")),
            Map.entry("pg_sleep", List.of("0")),
            Map.entry("round", List.of("2.5")),
            Map.entry("log", List.of("100")),
            Map.entry("json_build_object", List.of("a", "1")),
            Map.entry("pg_encoding_to_char", List.of("6")));

    /** Functions whose values differ by nature between two servers: only whether they answer is compared. */
    static final Set<String> VALUES_DIFFER = Set.of("random", "now", "clock_timestamp", "pg_backend_pid", "version",
            "gen_random_uuid", "pg_cancel_backend", "pg_total_relation_size", "pg_relation_size", "pg_table_size",
            "pg_indexes_size", "obj_description", "col_description", "shobj_description", "current_schemas",
            "pg_get_expr", "pg_get_viewdef", "pg_get_constraintdef", "pg_get_indexdef", "pg_get_partkeydef",
            "pg_get_statisticsobjdef_columns", "pg_get_serial_sequence", "pg_relation_is_publishable",
            "pg_function_is_visible", "pg_type_is_visible", "pg_collation_is_visible", "to_regclass");

    private static final String ANY = "a parameter passed as Postgres' \"any\" is text: Coilgun cannot tell an untyped "
            + "parameter from a text one (Postgres: 42P18 for an untyped one)";
    private static final String ONE = "Coilgun has one signature and takes it; Postgres cannot choose among its (42725)";

    /** The calls that answer differently from Postgres, each with its reason. */
    static final Map<String, String> DIFFERENCES = Map.ofEntries(
            Map.entry("concat", ANY),
            Map.entry("concat_ws", ANY),
            Map.entry("count", ANY),
            Map.entry("format", ANY),
            Map.entry("generate_series", ONE),
            Map.entry("json_build_object", ANY),
            Map.entry("mode", "Calcite's mode is a plain aggregate; Postgres' an ordered-set one, WITHIN GROUP required (42809)"),
            Map.entry("octet_length", "Calcite's octet_length takes bytes only, not text (42883)"),
            Map.entry("overlay", "Coilgun's grammar takes OVERLAY(a PLACING b FROM n [FOR m]), not the call form overlay(a, b, n)"),
            Map.entry("percentile_cont", "Calcite's grammar takes only a literal fraction (42601); Postgres cannot choose a signature (42725)"),
            Map.entry("percentile_disc", "Calcite's grammar takes only a literal fraction (42601); Postgres cannot choose a signature (42725)"),
            Map.entry("pg_get_indexdef", "Coilgun has pg_get_indexdef(index, column, pretty) only, not pg_get_indexdef(index) (42883)"),
            Map.entry("pg_get_serial_sequence", "Coilgun has no sequences: NULL for any table, without checking that it exists (Postgres: 42P01)"),
            Map.entry("pg_get_viewdef", "Coilgun's pg_get_viewdef takes an oid, not a view's name as text (42883); Postgres reads the text as a relation's name (42P01)"),
            Map.entry("pg_size_pretty", ONE),
            Map.entry("pg_sleep", "pg_sleep's void is NULL in Coilgun, an empty value in Postgres"),
            Map.entry("pg_table_is_visible", "Coilgun's catalog oids are its own (pg_class is not 1259)"),
            Map.entry("substring", "Postgres picks substring(text, text, text), the SQL regular expression form; Coilgun's substring takes integer positions (42883)"),
            Map.entry("sum", ONE),
            Map.entry("to_regtype", "to_regtype answers the type's oid, Postgres its regtype (printed as its name)"),
            Map.entry("to_timestamp", "to_timestamp(text, format) is Calcite's, not Postgres' formatted reading"));

    private FunctionSweep() {
    }

    /** The calls of the sweep (by function name, the SQL and its untyped arguments), chosen with Postgres' catalog. */
    static Map<String, Call> calls(int postgresPort) throws SQLException {
        Map<String, Call> calls = new LinkedHashMap<>();
        try (Connection c = connect(postgresPort);
                PreparedStatement ps = c.prepareStatement("SELECT oidvectortypes(proargtypes), prokind, proretset "
                        + "FROM pg_proc WHERE proname = ? AND pronamespace = 'pg_catalog'::regnamespace "
                        + "ORDER BY pronargs, oidvectortypes(proargtypes)")) {
            for (String name : QueryEngine.functionNames()) {
                List<String> args = SAMPLES.get(name);
                boolean set = false;
                ps.setString(1, name);
                try (ResultSet rs = ps.executeQuery()) {
                    boolean any = false;
                    while (rs.next()) {
                        any = true;
                        if (rs.getString(2).equals("w")) {
                            args = null;
                            break;
                        }
                        if (args == null) {
                            List<String> types = rs.getString(1).isEmpty() ? List.of()
                                    : List.of(rs.getString(1).split(", "));
                            if (types.stream().allMatch(BY_TYPE::containsKey) && !types.isEmpty()) {
                                args = types.stream().map(BY_TYPE::get).toList();
                                set = rs.getBoolean(3);
                            }
                        }
                    }
                    if (!any) {
                        continue; // Postgres has no function of the name
                    }
                }
                if (args != null && !args.isEmpty()) {
                    List<String> marks = new ArrayList<>();
                    for (int i = 1; i <= args.size(); i++) {
                        marks.add("$" + i);
                    }
                    String call = name + "(" + String.join(", ", marks) + ")";
                    calls.put(name, new Call(set ? "SELECT * FROM " + call : "SELECT " + call, args));
                }
            }
        }
        return calls;
    }

    /** One call: its SQL ($n markers) and the text of each untyped argument. */
    record Call(String sql, List<String> args) {
    }

    /** Each call's answer from the server on {@code port}: {@code "= value"} or {@code "! SQLSTATE message"}. */
    static Map<String, String> answers(int port, Map<String, Call> calls) throws SQLException {
        Map<String, String> answers = new LinkedHashMap<>();
        try (Connection c = connect(port)) {
            for (Map.Entry<String, Call> e : calls.entrySet()) {
                Call call = e.getValue();
                String jdbc = call.sql().replaceAll("\\$\\d+", "?");
                try (PreparedStatement ps = c.prepareStatement(jdbc)) {
                    for (int i = 0; i < call.args().size(); i++) {
                        ps.setObject(i + 1, call.args().get(i), Types.OTHER); // untyped: a Parse of type 0
                    }
                    try (ResultSet rs = ps.executeQuery()) {
                        String value = rs.next() ? rs.getString(1) : "(no row)";
                        answers.put(e.getKey(), VALUES_DIFFER.contains(e.getKey()) ? "= (answers)" : "= " + value);
                    }
                } catch (SQLException ex) {
                    answers.put(e.getKey(), "! " + ex.getSQLState() + " " + String.valueOf(ex.getMessage())
                            .lines().findFirst().orElse(""));
                }
            }
        }
        return answers;
    }

    private static Connection connect(int port) throws SQLException {
        // autocommit: an error ends nothing but its call
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + port + "/coilgun?user=coilgun"
                + "&connectTimeout=10");
    }
}
