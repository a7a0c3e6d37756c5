package io.coilgun.sql.compile;

import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.Privilege;
import io.coilgun.planner.model.Roles;
import io.coilgun.sql.parser.SqlAlterStream;
import io.coilgun.sql.parser.SqlCopy;
import io.coilgun.sql.parser.SqlCopyTo;
import io.coilgun.sql.parser.SqlCreateMetric;
import io.coilgun.sql.parser.SqlCreateSink;
import io.coilgun.sql.parser.SqlCreateStream;
import io.coilgun.sql.parser.SqlDropMetric;
import io.coilgun.sql.parser.SqlDropSink;
import io.coilgun.sql.parser.SqlDropStream;
import io.coilgun.sql.parser.SqlGrant;
import io.coilgun.sql.parser.SqlInsertReturning;
import io.coilgun.sql.parser.SqlOption;
import io.coilgun.sql.parser.SqlReplay;
import io.coilgun.sql.parser.SqlRoleStatement;
import io.coilgun.sql.parser.SqlSubscribe;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlNode;

/**
 * What a statement needs of its role (see {@link Need}), found from what it names and nothing else: the objects it
 * acts on, looked up by name. It checks nothing else about the statement (its columns, options, dependents, the other
 * objects it names), so that the privilege check comes first, as Postgres' does: a role without the privilege learns
 * nothing from the rest of its statement's errors. An object that does not exist needs nothing: the compiler then
 * says it does not exist (as Postgres does: 42P01 before 42501), or {@code IF EXISTS} skips it.
 *
 * <p>Twice for a statement: from the parsed statement before it compiles, and from the compiled statement before it
 * runs (what it compiled against, should the catalog have changed in between).
 */
final class Needs {
    private static final Need CREATE = new Need.CreateInSchema();

    private Needs() {
    }

    /** From the parsed statement, before it compiles. */
    static List<Need> of(SqlNode node, Catalog catalog) {
        if (node instanceof SqlInsertReturning ir) {
            return insert(ir.insert(), catalog);
        } else if (node instanceof SqlInsert insert) {
            return insert(insert, catalog);
        } else if (node instanceof SqlCopy copy) {
            return stream(copy.name(), catalog) ? List.of(new Need.OnRelation(Privilege.INSERT,
                    copy.name().getSimple())) : List.of();
        } else if (node instanceof SqlCopyTo copyTo) {
            return of(copyTo.query(), catalog); // what its statement needs (SUBSCRIBE, REPLAY, …)
        } else if (node instanceof SqlSubscribe sub) {
            return relation(sub.name(), catalog) ? List.of(new Need.OnRelation(Privilege.SELECT,
                    sub.name().getSimple())) : List.of();
        } else if (node instanceof SqlReplay replay) {
            return reads(replay.query().getFrom(), catalog, List.of());
        } else if (node instanceof SqlCreateStream) {
            return List.of(CREATE);
        } else if (node instanceof SqlCreateMetric cm) {
            return reads(cm.query().getFrom(), catalog, List.of(CREATE));
        } else if (node instanceof SqlCreateSink cs) {
            return relation(cs.from(), catalog) ? List.of(CREATE, new Need.OnRelation(Privilege.SELECT,
                    cs.from().getSimple())) : List.of(CREATE);
        } else if (node instanceof SqlAlterStream as) {
            return stream(as.name(), catalog) ? List.of(new Need.Owner("stream", as.name().getSimple())) : List.of();
        } else if (node instanceof SqlDropStream ds) {
            return stream(ds.name(), catalog) ? List.of(new Need.Owner("stream", ds.name().getSimple())) : List.of();
        } else if (node instanceof SqlDropMetric dm) {
            return simple(dm.name()) && catalog.metric(dm.name().getSimple()).isPresent()
                    ? List.of(new Need.Owner("metric", dm.name().getSimple())) : List.of();
        } else if (node instanceof SqlDropSink ds) {
            return simple(ds.name()) && catalog.sink(ds.name().getSimple()).isPresent()
                    ? List.of(new Need.Owner("sink", ds.name().getSimple())) : List.of();
        } else if (node instanceof SqlGrant grant) {
            return grant(grant, catalog);
        } else if (node instanceof SqlRoleStatement rs) {
            return role(rs, catalog);
        }
        // queries and cursors (each relation checked where it is read), EXPLAIN and SHOW (the catalog, as Postgres'
        // pg_class and pg_views show it to every role), SET, transactions; and what the compiler refuses anyway
        return List.of();
    }

    /** From the compiled statement, before it runs. */
    static List<Need> of(CompiledStatement st, Catalog catalog) {
        if (st instanceof InsertStatement ins) {
            return List.of(new Need.OnRelation(Privilege.INSERT, ins.stream().name()));
        } else if (st instanceof CopyStatement copy) {
            return List.of(new Need.OnRelation(Privilege.INSERT, copy.stream().name()));
        } else if (st instanceof SubscribeStatement sub) {
            return List.of(new Need.OnRelation(Privilege.SELECT, sub.metric() != null ? sub.metric().name()
                    : sub.stream().name()));
        } else if (st instanceof ReplayStatement replay) {
            return List.of(new Need.OnRelation(Privilege.SELECT, replay.stream().name())); // its events
        } else if (st instanceof CreateStreamStatement) {
            return List.of(CREATE);
        } else if (st instanceof CreateMetricStatement cm) {
            return List.of(CREATE, new Need.OnRelation(Privilege.SELECT, cm.metric().stream())); // backfills too
        } else if (st instanceof CreateSinkStatement cs) {
            return List.of(CREATE, new Need.OnRelation(Privilege.SELECT, cs.sink().from()));
        } else if (st instanceof AlterStreamStatement as) {
            return List.of(new Need.Owner("stream", as.stream().name()));
        } else if (st instanceof DropStreamStatement ds) {
            return catalog.stream(ds.name()).isPresent() ? List.of(new Need.Owner("stream", ds.name())) : List.of();
        } else if (st instanceof DropMetricStatement dm) {
            return catalog.metric(dm.name()).isPresent() ? List.of(new Need.Owner("metric", dm.name())) : List.of();
        } else if (st instanceof DropSinkStatement ds) {
            return catalog.sink(ds.name()).isPresent() ? List.of(new Need.Owner("sink", ds.name())) : List.of();
        } else if (st instanceof GrantStatement gs) {
            return gs.objects().stream().<Need>map(Need.GrantOn::new).toList();
        } else if (st instanceof RoleStatement rs) {
            return List.of(new Need.ManageRoles(rs.verb(), rs.names(), rs.verb() == SqlRoleStatement.Verb.ALTER
                    && rs.superuser() == null && rs.login() == null));
        }
        return List.of(); // COPY TO's statement is checked when it runs
    }

    private static List<Need> insert(SqlInsert insert, Catalog catalog) {
        return insert.getTargetTable() instanceof SqlIdentifier target && stream(target, catalog)
                ? List.of(new Need.OnRelation(Privilege.INSERT, target.getSimple())) : List.of();
    }

    /** {@code first}, then SELECT on the stream a metric (or REPLAY) reads FROM, when it is one. */
    private static List<Need> reads(SqlNode from, Catalog catalog, List<Need> first) {
        if (from instanceof SqlIdentifier id && stream(id, catalog)) {
            List<Need> needs = new ArrayList<>(first);
            needs.add(new Need.OnRelation(Privilege.SELECT, id.getSimple()));
            return needs;
        }
        return first;
    }

    private static List<Need> grant(SqlGrant grant, Catalog catalog) {
        List<Need> needs = new ArrayList<>();
        for (SqlNode o : grant.objects()) {
            List<String> parts = ((SqlIdentifier) o).names;
            String name = null;
            if (grant.onSchema()) {
                name = parts.equals(List.of("public")) ? Roles.SCHEMA_PUBLIC : null;
            } else if (parts.size() == 2 && parts.get(0).equals("coilgun")
                    && SystemTableNames.ALL.contains(parts.get(1))) {
                name = "coilgun." + parts.get(1);
            } else if (parts.size() == 1 || parts.size() == 2 && parts.get(0).equals("public")) {
                String relation = parts.get(parts.size() - 1);
                name = catalog.stream(relation).isPresent() || catalog.metric(relation).isPresent() ? relation : null;
            }
            if (name != null) {
                needs.add(new Need.GrantOn(name));
            }
        }
        return needs;
    }

    /**
     * CREATE and DROP ROLE need a superuser whatever they name (Postgres 15 checks that first); ALTER ROLE a role
     * that exists (Postgres 15 looks the role up first: 42704), and only its password if the role alters itself.
     */
    private static List<Need> role(SqlRoleStatement rs, Catalog catalog) {
        List<String> names = rs.names().stream().map(id -> id.names.get(0)).toList();
        if (rs.verb() != SqlRoleStatement.Verb.ALTER) {
            return List.of(new Need.ManageRoles(rs.verb(), names, false));
        }
        if (!names.stream().allMatch(n -> catalog.roles().role(n).isPresent())) {
            return List.of();
        }
        boolean passwordOnly = true;
        for (SqlNode option : rs.options()) {
            passwordOnly &= option instanceof SqlOption o && o.keyName().equalsIgnoreCase("password");
        }
        return List.of(new Need.ManageRoles(rs.verb(), names, passwordOnly));
    }

    private static boolean stream(SqlIdentifier id, Catalog catalog) {
        return simple(id) && catalog.stream(id.getSimple()).isPresent();
    }

    /** A metric or a stream. */
    private static boolean relation(SqlIdentifier id, Catalog catalog) {
        return simple(id) && (catalog.metric(id.getSimple()).isPresent() || catalog.stream(id.getSimple()).isPresent());
    }

    private static boolean simple(SqlIdentifier id) {
        return id != null && id.isSimple();
    }
}
