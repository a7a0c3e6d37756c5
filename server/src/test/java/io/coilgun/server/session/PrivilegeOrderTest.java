package io.coilgun.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.StartupInfo;
import io.coilgun.pgwire.spi.Statement;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.model.Privilege;
import io.coilgun.planner.model.RoleDef;
import io.coilgun.planner.model.Roles;
import io.coilgun.server.access.Privileges;
import io.coilgun.sql.compile.CompiledStatement;
import io.coilgun.sql.compile.CopyToStatement;
import io.coilgun.sql.compile.CursorStatement;
import io.coilgun.sql.compile.ExplainStatement;
import io.coilgun.sql.compile.QueryStatement;
import io.coilgun.sql.compile.RowsStatement;
import io.coilgun.sql.compile.SetStatement;
import io.coilgun.sql.compile.ShowStatement;
import io.coilgun.sql.compile.SqlStatement;
import io.coilgun.sql.compile.TransactionStatement;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 58: a role without a statement's privilege gets 42501 before anything else about the statement is checked,
 * whatever else is wrong with it (dependents, an unknown column or option, a missing second object it names), and no
 * message, DETAIL or HINT names an object the statement did not name. Every kind of statement the compiler takes,
 * through the session as pgwire drives it (Execute and Describe), over a {@link FakeNode}: the real compiler,
 * catalog and privileges.
 *
 * <p>The catalog: stream {@code payments} with metrics {@code card_5m} (read by sink {@code card_out}) and
 * {@code tally}, and stream {@code spare} with nothing on it, all owned by the superuser {@code admin} but
 * {@code tally}, which {@code maker} created. {@code mallory} holds nothing; {@code maker} CREATE on schema public;
 * {@code reader} SELECT on {@code card_5m}.
 */
class PrivilegeOrderTest {
    /** The names of the catalog's objects: no error may name one its statement did not. */
    static final List<String> OBJECTS = List.of("payments", "card_5m", "card_out", "tally", "spare");

    /**
     * A statement a role may not run, the 42501 message it gets, and what else is wrong with it: the SQLSTATE a
     * superuser gets compiling it (null: it compiles; what is wrong shows when it runs, or nothing is).
     */
    record Denied(String sql, String message, String otherwise) {
    }

    static Denied denied(String sql, String message, String otherwise) {
        return new Denied(sql, message, otherwise);
    }

    static final String PAYMENTS = "permission denied for table payments";
    static final String SCHEMA = "permission denied for schema public";
    static final String OWN_PAYMENTS = "must be owner of stream payments";
    static final String ROLES = " role: only a superuser manages roles";

    /** Every kind of statement that needs a privilege, each as a role holding none of them runs it. */
    static final List<Denied> SWEEP = List.of(
            // INSERT
            denied("INSERT INTO payments VALUES (1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 1.0)", PAYMENTS, null),
            denied("INSERT INTO payments (id, nosuch) VALUES (1, 2)", PAYMENTS, "42703"),
            denied("INSERT INTO payments VALUES (1)", PAYMENTS, "42601"),
            denied("INSERT INTO payments VALUES (1, 'not a time', 'c1', 1.0) RETURNING *", PAYMENTS, "22007"),
            denied("INSERT INTO payments SELECT * FROM card_5m", PAYMENTS, "0A000"),
            // COPY FROM
            denied("COPY payments FROM STDIN", PAYMENTS, null),
            denied("COPY payments (nosuch) FROM STDIN WITH (FORMAT csv)", PAYMENTS, "42703"),
            denied("COPY payments FROM STDIN WITH (FORMAT nosuch)", PAYMENTS, "22023"),
            // SUBSCRIBE
            denied("SUBSCRIBE payments", PAYMENTS, null),
            denied("SUBSCRIBE TO card_5m WHERE nosuch > 1", "permission denied for table card_5m", "42703"),
            // REPLAY: SELECT on the stream it reads
            denied("REPLAY SELECT COUNT(*) AS n FROM payments GROUP BY card_id OVER SLIDING 1 HOUR", PAYMENTS, null),
            denied("REPLAY SELECT SUM(nosuch) AS t FROM payments GROUP BY card_id OVER SLIDING 1 HOUR", PAYMENTS,
                    "42703"),
            denied("REPLAY SELECT COUNT(*) AS n FROM payments GROUP BY card_id OVER SLIDING 1 HOUR BETWEEN "
                    + "TIMESTAMP '2026-01-02 00:00:00' AND TIMESTAMP '2026-01-01 00:00:00'", PAYMENTS, "22023"),
            // COPY (…) TO STDOUT: what its statement needs, before its options or its statement are checked
            denied("COPY (SUBSCRIBE card_5m WHERE nosuch > 1) TO STDOUT WITH (FORMAT nosuch)",
                    "permission denied for table card_5m", "22023"),
            denied("COPY (REPLAY SELECT SUM(nosuch) AS t FROM payments GROUP BY card_id OVER SLIDING 1 HOUR) "
                    + "TO STDOUT", PAYMENTS, null),
            denied("COPY (INSERT INTO payments (nosuch) VALUES (1) RETURNING *) TO STDOUT", PAYMENTS, null),
            // CREATE STREAM, METRIC, SINK: CREATE on schema public first
            denied("CREATE STREAM mine (id BIGINT, ts TIMESTAMP, k VARCHAR) WITH (event_time = 'ts', "
                    + "event_id = 'id', partition_by = 'k')", SCHEMA, null),
            denied("CREATE STREAM payments (id BIGINT, ts TIMESTAMP, k VARCHAR) WITH (event_time = 'ts', "
                    + "partition_by = 'k')", SCHEMA, null),
            denied("CREATE STREAM IF NOT EXISTS payments (id BIGINT, ts TIMESTAMP, k VARCHAR) WITH (event_time = "
                    + "'ts', partition_by = 'k')", SCHEMA, null),
            denied("CREATE STREAM mine (id BIGINT, ts TIMESTAMP, k VARCHAR) WITH (event_time = 'ts', "
                    + "partition_by = 'k', bogus = 1)", SCHEMA, "22023"),
            denied("CREATE METRIC mine AS SELECT COUNT(*) AS n FROM payments GROUP BY card_id OVER SLIDING 1 HOUR",
                    SCHEMA, null),
            denied("CREATE METRIC card_5m AS SELECT COUNT(*) AS n FROM payments GROUP BY card_id OVER SLIDING "
                    + "1 HOUR", SCHEMA, null),
            denied("CREATE METRIC mine AS SELECT SUM(nosuch) AS t FROM payments GROUP BY card_id OVER SLIDING "
                    + "1 HOUR", SCHEMA, "42703"),
            denied("CREATE METRIC mine AS SELECT COUNT(*) AS n FROM nowhere GROUP BY k OVER SLIDING 1 HOUR", SCHEMA,
                    "42P01"),
            denied("CREATE METRIC mine AS SELECT COUNT(*) AS n FROM payments GROUP BY card_id OVER SLIDING 1 HOUR "
                    + "WITH (bogus = 1)", SCHEMA, "22023"),
            denied("CREATE SINK mine FROM card_5m INTO KAFKA TOPIC 'mine'", SCHEMA, null),
            denied("CREATE SINK mine FROM nowhere INTO KAFKA TOPIC 'mine'", SCHEMA, "42P01"),
            denied("CREATE SINK mine FROM card_5m INTO KAFKA TOPIC 'mine' WITH (format = 'xml')", SCHEMA, "22023"),
            // ALTER STREAM, each form: its owner first
            denied("ALTER STREAM payments ADD COLUMN note VARCHAR", OWN_PAYMENTS, null),
            denied("ALTER STREAM payments ADD COLUMN card_id VARCHAR", OWN_PAYMENTS, "42701"),
            denied("ALTER STREAM payments ADD COLUMN note VARCHAR NOT NULL", OWN_PAYMENTS, "23502"),
            denied("ALTER STREAM payments ADD COLUMN note nosuchtype", OWN_PAYMENTS, "42704"),
            denied("ALTER STREAM payments SET (replicas = 2)", OWN_PAYMENTS, null),
            denied("ALTER STREAM payments SET (bogus = 1)", OWN_PAYMENTS, "0A000"),
            denied("ALTER STREAM payments ADD PARTITION BY id", OWN_PAYMENTS, null),
            denied("ALTER STREAM payments ADD PARTITION BY nosuch", OWN_PAYMENTS, "42703"),
            denied("ALTER STREAM payments ADD PARTITION BY id WITH (bogus = 1)", OWN_PAYMENTS, "0A000"),
            denied("ALTER STREAM payments DROP PARTITION BY card_id", OWN_PAYMENTS, "0A000"),
            // DROP, each kind of object, with and without dependents, IF EXISTS: its owner first
            denied("DROP STREAM payments", OWN_PAYMENTS, "2BP01"), // the case: DETAIL named the metrics
            denied("DROP STREAM payments RESTRICT", OWN_PAYMENTS, "2BP01"),
            denied("DROP STREAM payments CASCADE", OWN_PAYMENTS, null),
            denied("DROP STREAM IF EXISTS payments", OWN_PAYMENTS, "2BP01"),
            denied("DROP STREAM spare", "must be owner of stream spare", null),
            denied("DROP STREAM IF EXISTS spare CASCADE", "must be owner of stream spare", null),
            denied("DROP METRIC card_5m", "must be owner of metric card_5m", "2BP01"), // a sink reads it
            denied("DROP METRIC IF EXISTS card_5m", "must be owner of metric card_5m", "2BP01"),
            denied("DROP METRIC tally", "must be owner of metric tally", null),
            denied("DROP SINK card_out", "must be owner of sink card_out", null),
            denied("DROP SINK IF EXISTS card_out", "must be owner of sink card_out", null),
            // GRANT and REVOKE: the owner of each object first
            denied("GRANT SELECT ON payments TO mallory", PAYMENTS, null),
            denied("GRANT SELECT ON public.payments TO nobody", PAYMENTS, "42704"),
            denied("GRANT UPDATE ON payments TO mallory", PAYMENTS, "0A000"),
            denied("GRANT INSERT ON card_5m TO mallory", "permission denied for table card_5m", "42809"),
            denied("GRANT CREATE ON TABLE payments TO mallory", PAYMENTS, "22023"),
            denied("GRANT ALL ON TABLE payments, card_5m TO PUBLIC", PAYMENTS, "42809"),
            denied("REVOKE SELECT ON card_5m FROM reader", "permission denied for table card_5m", null),
            denied("GRANT SELECT ON coilgun.tasks TO mallory", "permission denied for table coilgun.tasks", null),
            denied("GRANT CREATE ON SCHEMA public TO mallory", SCHEMA, null),
            denied("REVOKE ALL ON SCHEMA public FROM nobody", SCHEMA, "42704"),
            denied("GRANT SELECT ON SCHEMA public TO mallory", SCHEMA, "22023"),
            // role DDL: a superuser's; a role may change only its own password
            denied("CREATE ROLE intruder", "permission denied to create" + ROLES, null),
            denied("CREATE ROLE reader", "permission denied to create" + ROLES, "42710"),
            denied("CREATE ROLE public", "permission denied to create" + ROLES, "42602"),
            denied("CREATE USER intruder SUPERUSER INHERIT", "permission denied to create" + ROLES, "0A000"),
            denied("ALTER ROLE reader PASSWORD 'x'", "permission denied to alter" + ROLES, null),
            denied("ALTER ROLE mallory SUPERUSER", "permission denied to alter" + ROLES, null),
            denied("ALTER ROLE mallory LOGIN PASSWORD 'x'", "permission denied to alter" + ROLES, null),
            denied("ALTER ROLE mallory INHERIT", "permission denied to alter" + ROLES, "0A000"),
            denied("DROP ROLE reader", "permission denied to drop" + ROLES, null),
            denied("DROP ROLE maker", "permission denied to drop" + ROLES, null), // owns tally (2BP01 when run)
            denied("DROP ROLE nobody", "permission denied to drop" + ROLES, "42704"),
            denied("DROP ROLE IF EXISTS nobody", "permission denied to drop" + ROLES, null));

    /** The statements that need nothing of a role (queries are checked where they read; see QueryEngine). */
    static final Set<Class<?>> NEED_NOTHING = Set.of(QueryStatement.class, CursorStatement.class,
            CopyToStatement.class, ExplainStatement.class, RowsStatement.class, ShowStatement.class,
            SetStatement.class, TransactionStatement.class);

    final FakeNode node = new FakeNode();
    final Roles roles = node.catalog.roles();

    @BeforeEach
    void catalog() {
        node.privileges = new Privileges(roles, Set.of("admin"), false);
        roles.put(new RoleDef("mallory", false, true, null));
        roles.put(new RoleDef("maker", false, true, null));
        roles.put(new RoleDef("reader", false, true, null));
        roles.grant("maker", Roles.SCHEMA_PUBLIC, EnumSet.of(Privilege.CREATE));
        roles.grant("maker", "spare", EnumSet.of(Privilege.SELECT));
        roles.grant("reader", "card_5m", EnumSet.of(Privilege.SELECT));
        CoilgunSession admin = session("admin");
        run(admin, FakeNode.PAYMENTS);
        run(admin, FakeNode.CARD_5M);
        run(admin, "CREATE SINK card_out FROM card_5m INTO KAFKA TOPIC 'card_out'");
        run(admin, "CREATE STREAM spare (id BIGINT, ts TIMESTAMP, k VARCHAR) WITH (event_time = 'ts', "
                + "partition_by = 'k')");
        roles.grant("maker", "payments", EnumSet.of(Privilege.SELECT));
        run(session("maker"), "CREATE METRIC tally AS SELECT COUNT(*) AS n FROM payments GROUP BY card_id "
                + "OVER SLIDING 1 HOUR");
        roles.grant("maker", "payments", EnumSet.noneOf(Privilege.class));
        node.calls.clear();
    }

    @Test
    void theCatalogIsAsTheSweepSaysIt() {
        assertEquals(java.util.Optional.of("maker"), roles.owner("tally"));
        assertEquals(java.util.Optional.of("admin"), roles.owner("payments"));
        assertEquals(Set.of(), roles.granted("maker", "payments"));
        assertEquals(2, node.catalog.metricsOf("payments").size());
        assertEquals(1, node.catalog.sinks().size());
    }

    /**
     * The case: DROP STREAM of a stream a metric reads, by a role that does not own it, said 2BP01 with the
     * metric's name in DETAIL; Postgres says 42501 (must be owner) and nothing of the dependents.
     */
    @Test
    void droppingAStreamOthersDependOnIsRefusedForWantOfOwnershipFirst() {
        PgException e = refused(session("mallory"), "DROP STREAM payments");
        assertEquals("42501", e.sqlState(), e.getMessage());
        assertEquals("must be owner of stream payments", e.getMessage());
        assertNull(e.detail());
        assertNull(e.hint());
    }

    /** Each statement of the sweep, as a role holding nothing runs it: 42501 first, naming nothing else. */
    @Test
    void aRoleWithoutThePrivilegeGets42501WhateverElseIsWrong() {
        CoilgunSession mallory = session("mallory");
        List<String> failures = new ArrayList<>();
        for (Denied d : SWEEP) {
            PgException e = refused(mallory, d.sql());
            String problem = problem(d, e);
            if (problem != null) {
                failures.add(d.sql() + ": " + problem);
            }
            PgException described = assertThrows(PgException.class, () -> mallory.describe(parse(mallory, d.sql())),
                    d.sql());
            problem = problem(d, described);
            if (problem != null) {
                failures.add("Describe " + d.sql() + ": " + problem);
            }
        }
        assertEquals(List.of(), failures);
        assertEquals(List.of(), node.calls.stream().filter(c -> !c.startsWith("statementDone")).toList(),
                "nothing ran");
        assertEquals(2, node.catalog.metricsOf("payments").size(), "nothing changed");
    }

    /** What the sweep says is wrong with each statement besides the privilege is so: a superuser gets that. */
    @Test
    void eachStatementOfTheSweepIsWrongAsItSays() {
        List<String> failures = new ArrayList<>();
        for (Denied d : SWEEP) {
            String state;
            try {
                node.compiler().compile(SqlStatement.parse(d.sql()).get(0), List.of());
                state = null;
            } catch (CoilgunException e) {
                state = e.state().code();
            }
            if (!java.util.Objects.equals(d.otherwise(), state)) {
                failures.add(d.sql() + ": a superuser gets " + state + ", not " + d.otherwise());
            }
        }
        assertEquals(List.of(), failures);
    }

    /**
     * Every kind of statement that needs a privilege is in the sweep (a new kind fails this until it is, or until
     * it is known to need nothing); and what a statement needs as parsed (asked before it compiles) is what it
     * needs as compiled (asked again before it runs).
     */
    @Test
    void theSweepCoversEveryKindOfStatement() {
        Set<Class<?>> covered = new HashSet<>();
        for (Denied d : SWEEP) {
            try {
                SqlStatement parsed = SqlStatement.parse(d.sql()).get(0);
                CompiledStatement compiled = node.compiler().compile(parsed, List.of());
                covered.add(compiled.getClass());
                if (!NEED_NOTHING.contains(compiled.getClass())) {
                    assertFalse(node.compiler().needs(compiled).isEmpty(), d.sql());
                    assertEquals(node.compiler().needs(compiled), node.compiler().needs(parsed), d.sql());
                }
            } catch (CoilgunException e) {
                // wrong in another way: covered by the statements of its kind that compile
            }
        }
        for (Class<?> kind : CompiledStatement.class.getPermittedSubclasses()) {
            assertTrue(covered.contains(kind) || NEED_NOTHING.contains(kind), kind.getSimpleName()
                    + " is not in the sweep");
        }
    }

    /** A role holding part of what a statement needs is refused for the part it lacks, before the rest is checked. */
    @Test
    void aRoleHoldingPartOfItIsRefusedForWhatItLacks() {
        CoilgunSession maker = session("maker"); // CREATE on schema public, SELECT on spare
        assertEquals(PAYMENTS, refused(maker, "CREATE METRIC mine AS SELECT SUM(nosuch) AS t FROM payments "
                + "GROUP BY card_id OVER SLIDING 1 HOUR").getMessage());
        assertEquals("permission denied for table card_5m", refused(maker, "CREATE SINK mine FROM card_5m INTO "
                + "KAFKA TOPIC 'mine' WITH (format = 'xml')").getMessage());
        assertEquals("42P01", refused(maker, "CREATE METRIC mine AS SELECT COUNT(*) AS n FROM nowhere GROUP BY k "
                + "OVER SLIDING 1 HOUR").sqlState(), "it may create: what it reads does not exist");
        assertEquals("42703", refused(maker, "CREATE METRIC mine AS SELECT SUM(nosuch) AS t FROM spare GROUP BY k "
                + "OVER SLIDING 1 HOUR").sqlState(), "it may: the real error");
        assertEquals("DROP METRIC", run(maker, "DROP METRIC tally").commandTag(), "its own");

        CoilgunSession reader = session("reader"); // SELECT on card_5m
        assertEquals("42703", refused(reader, "SUBSCRIBE TO card_5m WHERE nosuch > 1").sqlState());
        PgException grant = refused(reader, "GRANT SELECT ON card_5m TO mallory");
        assertEquals("42501", grant.sqlState());
        assertEquals("permission denied for table card_5m", grant.getMessage(), "SELECT without its owner's rights");
        PgException drop = refused(reader, "DROP METRIC card_5m");
        assertEquals("must be owner of metric card_5m", drop.getMessage());
        assertNull(drop.detail(), "not the sink that reads it");
        assertEquals("ALTER ROLE", run(reader, "ALTER ROLE reader PASSWORD 'its-own'").commandTag());
    }

    /**
     * As in Postgres 15, what the statement acts on is looked up before the privilege is checked: a target that
     * does not exist is said not to exist (its name is the statement's own), IF EXISTS skips it; DROP ROLE and
     * CREATE ROLE ask first.
     */
    @Test
    void aTargetThatDoesNotExistIsSaidNotToExistAsInPostgres() {
        CoilgunSession mallory = session("mallory");
        Map<String, String> missing = Map.of(
                "DROP STREAM nowhere", "42P01",
                "DROP METRIC nowhere", "42P01",
                "DROP SINK nowhere", "42704",
                "ALTER STREAM nowhere ADD COLUMN note VARCHAR", "42P01",
                "INSERT INTO nowhere VALUES (1)", "42P01",
                "COPY nowhere FROM STDIN", "42P01",
                "SUBSCRIBE nowhere", "42P01",
                "GRANT SELECT ON nowhere TO mallory", "42P01",
                "ALTER ROLE nobody PASSWORD 'x'", "42704",
                "DROP ROLE nobody", "42501");
        missing.forEach((sql, state) -> assertEquals(state, refused(mallory, sql).sqlState(), sql));
        assertEquals("DROP STREAM", run(mallory, "DROP STREAM IF EXISTS nowhere").commandTag());
        assertEquals("DROP METRIC", run(mallory, "DROP METRIC IF EXISTS nowhere").commandTag());
    }

    /** What needs no privilege runs as before: the catalog, as Postgres' pg_class and pg_views, is every role's. */
    @Test
    void showAndExplainNeedNothing() {
        CoilgunSession mallory = session("mallory");
        assertEquals("SHOW 2", run(mallory, "SHOW STREAMS").commandTag());
        assertEquals("EXPLAIN", run(mallory, "EXPLAIN STREAM payments").commandTag());
        assertEquals("SET", run(mallory, "SET statement_timeout = '1s'").commandTag());
    }

    /** What Coilgun does not run is refused for every role alike, naming nothing the statement did not. */
    @Test
    void whatCoilgunDoesNotRunIsRefusedForEveryRoleAlike() {
        for (String sql : List.of("UPDATE payments SET amount = 0", "DELETE FROM payments", "TRUNCATE payments",
                "TRUNCATE TABLE payments", "MERGE INTO payments USING card_5m ON true WHEN MATCHED THEN DELETE")) {
            PgException asMallory = refused(session("mallory"), sql);
            PgException asAdmin = refused(session("admin"), sql);
            assertEquals(asAdmin.sqlState(), asMallory.sqlState(), sql);
            assertEquals(asAdmin.getMessage(), asMallory.getMessage(), sql);
            assertTrue(Set.of("0A000", "42601").contains(asMallory.sqlState()), sql + ": " + asMallory.getMessage());
            assertNull(problem(new Denied(sql, asMallory.getMessage(), null), new PgException("42501",
                    asMallory.getMessage())), sql);
        }
    }

    /** A superuser's statements are not asked anything, and fail as they always did. */
    @Test
    void aSuperuserGetsTheStatementsOwnErrors() {
        PgException e = refused(session("admin"), "DROP STREAM payments");
        assertEquals("2BP01", e.sqlState());
        assertTrue(e.detail().contains("card_5m"), e.detail());
    }

    /** Why {@code e} is not the sweep's answer to {@code d}, or null. */
    static String problem(Denied d, PgException e) {
        if (!e.sqlState().equals("42501")) {
            return e.sqlState() + " " + e.getMessage() + (e.detail() == null ? "" : " DETAIL " + e.detail());
        }
        if (!e.getMessage().equals(d.message())) {
            return "message \"" + e.getMessage() + "\"";
        }
        if (e.detail() != null || e.hint() != null) {
            return "DETAIL " + e.detail() + " HINT " + e.hint();
        }
        for (String object : OBJECTS) {
            if (!d.sql().contains(object) && e.getMessage().contains(object)) {
                return "names " + object;
            }
        }
        return null;
    }

    CoilgunSession session(String user) {
        CoilgunSession s = new CoilgunSession(node, new StartupInfo(user, "coilgun", Map.of()));
        s.started(user.hashCode() & 0xffff, null);
        return s;
    }

    static Statement parse(CoilgunSession session, String sql) {
        List<Statement> statements = session.parse(sql);
        assertEquals(1, statements.size(), sql);
        return statements.get(0);
    }

    static QueryResult run(CoilgunSession session, String sql) {
        try {
            return session.execute(parse(session, sql), List.of()).toCompletableFuture().join();
        } catch (CompletionException e) {
            throw (PgException) e.getCause();
        }
    }

    static PgException refused(CoilgunSession session, String sql) {
        return assertThrows(PgException.class, () -> run(session, sql), sql);
    }
}
