package io.coilgun.sql.compile;

import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.Privilege;
import io.coilgun.planner.model.Roles;
import io.coilgun.sql.parser.SqlGrant;
import io.coilgun.sql.parser.SqlOption;
import io.coilgun.sql.parser.SqlRoleStatement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;

/** Compiles CREATE/ALTER/DROP ROLE (or USER) and GRANT/REVOKE against the catalog's roles and relations. */
final class RoleCompiler {
    /** Role names as the catalog keeps them (its record keys separate with ':'). */
    private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private RoleCompiler() {
    }

    static RoleStatement role(SqlText sql, SqlRoleStatement node, Catalog catalog) {
        List<String> names = new ArrayList<>();
        for (SqlIdentifier id : node.names()) {
            String name = id.names.get(0);
            if (!NAME.matcher(name).matches()) {
                throw sql.error(SqlState.INVALID_NAME, "role name \"" + name + "\" must be letters, digits and "
                        + "underscores, not starting with a digit", id);
            }
            if (name.equals(Roles.PUBLIC)) {
                throw sql.error(SqlState.INVALID_NAME, "role name \"public\" is reserved", id);
            }
            names.add(name);
        }
        SqlRoleStatement.Verb verb = node.verb();
        if (verb != SqlRoleStatement.Verb.DROP && names.size() > 1) {
            throw sql.error(SqlState.SYNTAX_ERROR, "syntax error at or near \",\"", node.names().get(1));
        }
        if (verb != SqlRoleStatement.Verb.DROP && node.ifExists()) {
            throw sql.error(SqlState.SYNTAX_ERROR, "syntax error at or near \"IF\"", node);
        }
        Boolean superuser = null;
        Boolean login = verb == SqlRoleStatement.Verb.CREATE ? node.user() : null; // CREATE USER logs in
        String password = null;
        boolean noPassword = false;
        for (SqlNode option : node.options()) {
            if (verb == SqlRoleStatement.Verb.DROP) {
                throw sql.error(SqlState.SYNTAX_ERROR, "syntax error at or near \"" + option + "\"", option);
            }
            if (option instanceof SqlOption o) {
                if (!o.keyName().equalsIgnoreCase("password")) {
                    throw sql.error(SqlState.SYNTAX_ERROR, "syntax error at or near \"" + o.keyName() + "\"", o);
                }
                if (o.value().getValue() == null) {
                    noPassword = true;
                } else {
                    password = o.valueAsString();
                    if (password.isEmpty()) {
                        throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "empty password", o);
                    }
                }
                continue;
            }
            String word = ((SqlIdentifier) option).names.get(0).toLowerCase(Locale.ROOT);
            switch (word) {
                case "superuser" -> superuser = true;
                case "nosuperuser" -> superuser = false;
                case "login" -> login = true;
                case "nologin" -> login = false;
                case "inherit", "noinherit", "createdb", "nocreatedb", "createrole", "nocreaterole",
                        "replication", "noreplication", "bypassrls", "nobypassrls" ->
                    throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "role option " + word.toUpperCase(Locale.ROOT)
                            + " is not supported: a role is a superuser or has the privileges granted to it", option);
                default -> throw sql.error(SqlState.SYNTAX_ERROR, "unrecognized role option \"" + word + "\"",
                        option);
            }
        }
        Roles roles = catalog.roles();
        for (int i = 0; i < names.size(); i++) {
            boolean exists = roles.role(names.get(i)).isPresent();
            if (verb == SqlRoleStatement.Verb.CREATE && exists) {
                throw sql.error(SqlState.DUPLICATE_OBJECT, "role \"" + names.get(i) + "\" already exists",
                        node.names().get(i));
            }
            if (verb != SqlRoleStatement.Verb.CREATE && !exists && !node.ifExists()) {
                throw sql.error(SqlState.UNDEFINED_OBJECT, "role \"" + names.get(i) + "\" does not exist",
                        node.names().get(i));
            }
        }
        return new RoleStatement(verb, names, node.ifExists(), superuser, login, password, noPassword);
    }

    static GrantStatement grant(SqlText sql, SqlGrant node, Catalog catalog) {
        List<String> objects = new ArrayList<>();
        Set<Privilege> privileges = EnumSet.noneOf(Privilege.class);
        boolean all = node.privileges().contains("ALL");
        for (String p : node.privileges()) {
            if (p.equals("UPDATE") || p.equals("DELETE")) {
                throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "events are only ever appended: there is no "
                        + p + " privilege", node);
            }
            if (!p.equals("ALL")) {
                privileges.add(Privilege.valueOf(p));
            }
        }
        for (SqlNode o : node.objects()) {
            SqlIdentifier id = (SqlIdentifier) o;
            if (node.onSchema()) {
                if (!id.names.get(0).equals("public")) {
                    throw sql.error(SqlState.UNDEFINED_OBJECT, "schema \"" + id.names.get(0) + "\" does not exist",
                            id);
                }
                if (all) {
                    privileges.add(Privilege.CREATE);
                }
                if (!privileges.equals(EnumSet.of(Privilege.CREATE))) {
                    throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "a schema takes only CREATE", node);
                }
                objects.add(Roles.SCHEMA_PUBLIC);
                continue;
            }
            String name = relation(sql, id, catalog);
            boolean stream = catalog.stream(name).isPresent();
            if (all) {
                privileges.add(Privilege.SELECT);
                if (stream) {
                    privileges.add(Privilege.INSERT);
                }
            }
            if (privileges.contains(Privilege.CREATE)) {
                throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "CREATE is granted on schema public (GRANT CREATE "
                        + "ON SCHEMA public TO …), not on a relation", node);
            }
            if (privileges.contains(Privilege.INSERT) && !stream) {
                throw sql.error(SqlState.WRONG_OBJECT_TYPE, "\"" + name + "\" is not a stream: only streams take "
                        + "INSERT", id);
            }
            objects.add(name);
        }
        List<String> roles = new ArrayList<>();
        for (SqlNode r : node.roles()) {
            String role = ((SqlIdentifier) r).names.get(0);
            if (!role.equals(Roles.PUBLIC) && catalog.roles().role(role).isEmpty()) {
                throw sql.error(SqlState.UNDEFINED_OBJECT, "role \"" + role + "\" does not exist", r);
            }
            roles.add(role);
        }
        return new GrantStatement(node.grant(), privileges, objects, roles);
    }

    /** A stream, metric or system table ({@code coilgun.<name>}) by name; 42P01 if there is none. */
    private static String relation(SqlText sql, SqlIdentifier id, Catalog catalog) {
        List<String> parts = id.names;
        if (parts.size() == 2 && parts.get(0).equals("coilgun") && SystemTableNames.ALL.contains(parts.get(1))) {
            return "coilgun." + parts.get(1);
        }
        String name = parts.size() == 2 && parts.get(0).equals("public") ? parts.get(1) : String.join(".", parts);
        if (parts.size() > 2 || catalog.stream(name).isEmpty() && catalog.metric(name).isEmpty()) {
            throw sql.error(SqlState.UNDEFINED_TABLE, "relation \"" + String.join(".", parts) + "\" does not exist",
                    id);
        }
        return name;
    }
}
