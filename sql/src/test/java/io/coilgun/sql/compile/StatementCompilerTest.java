package io.coilgun.sql.compile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.model.AggregationKind;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.Privilege;
import io.coilgun.planner.model.Roles;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.WindowSpec;
import io.coilgun.sql.parser.CoilgunParser;
import io.coilgun.sql.parser.ParsedStatement;
import io.coilgun.sql.parser.SqlRoleStatement;
import java.math.BigDecimal;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class StatementCompilerTest {
    static final String PAYMENTS = "CREATE STREAM payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, "
            + "merchant_id VARCHAR, amount DOUBLE, n INTEGER) WITH (event_time = 'ts', event_id = 'id', "
            + "partition_by = 'card_id, merchant_id', partitions = 8, lateness = '2 seconds', late_events = 'clamp')";

    final Catalog catalog = new Catalog();
    final StatementCompiler compiler = new StatementCompiler(catalog,
            new ValueConverter(Clock.fixed(Instant.parse("2026-06-01T00:00:00Z"), ZoneOffset.UTC)));

    @BeforeEach
    void payments() {
        catalog.addStream(((CreateStreamStatement) compile(PAYMENTS)).stream());
    }

    CompiledStatement compile(String sql) {
        ParsedStatement p = CoilgunParser.parse(sql).get(0);
        return compiler.compile(sql, p.node(), p.text());
    }

    CoilgunException error(String sql, String state) {
        CoilgunException e = assertThrows(CoilgunException.class, () -> compile(sql), sql);
        assertEquals(state, e.state().code(), () -> sql + " -> " + e.getMessage());
        return e;
    }

    @Test
    void createStreamTakesEveryOption() {
        StreamDef s = catalog.stream("payments").orElseThrow();
        assertEquals(1, s.eventTimeIndex());
        assertEquals(0, s.eventIdIndex());
        assertEquals(java.util.List.of("card_id", "merchant_id"), s.partitionBy());
        assertEquals(8, s.partitions());
        assertEquals(2_000_000L, s.latenessMicros());
        assertEquals(LatePolicy.CLAMP, s.latePolicy());
        assertEquals(ColumnType.INTEGER, s.column(5).type());
        assertEquals(PAYMENTS, s.ddl());
    }

    @Test
    void aStreamFedFromAKafkaTopic() {
        StreamDef s = ((CreateStreamStatement) compile("CREATE STREAM fed (id BIGINT, ts TIMESTAMP, k TEXT) WITH "
                + "(event_id = 'id', partition_by = 'k', kafka_topic = 'payments.v1', format = 'CSV', "
                + "bad_records = 'stop')")).stream();
        assertEquals(new io.coilgun.planner.model.StreamSource("payments.v1", io.coilgun.planner.model.StreamSource
                .Format.CSV, io.coilgun.planner.model.StreamSource.BadRecords.STOP), s.source());
        StreamDef json = ((CreateStreamStatement) compile("CREATE STREAM fed2 (id TEXT, ts TIMESTAMP, k TEXT) WITH "
                + "(event_id = 'id', partition_by = 'k', kafka_topic = 't')")).stream();
        assertEquals("kafka topic t (json, bad records skip)", json.source().describe());
        assertEquals(null, catalog.stream("payments").orElseThrow().source());
        // its records may be read again after a failure: an event id makes them duplicates
        error("CREATE STREAM f (ts TIMESTAMP, k TEXT) WITH (partition_by = 'k', kafka_topic = 't')", "42P17");
        error("CREATE STREAM f (id INT, ts TIMESTAMP, k TEXT) WITH (event_id = 'id', partition_by = 'k', "
                + "format = 'json')", "22023");
        error("CREATE STREAM f (id INT, ts TIMESTAMP, k TEXT) WITH (event_id = 'id', partition_by = 'k', "
                + "kafka_topic = 't', format = 'avro')", "22023");
        error("CREATE STREAM f (id INT, ts TIMESTAMP, k TEXT) WITH (event_id = 'id', partition_by = 'k', "
                + "kafka_topic = 'coilgun.catalog')", "22023");
        error("CREATE STREAM f (id INT, ts TIMESTAMP, k TEXT) WITH (event_id = 'id', partition_by = 'k', "
                + "kafka_topic = 'a topic')", "22023");
    }

    @Test
    void aSinkOfAMetricOrAStream() {
        catalog.addMetric(((CreateMetricStatement) compile("CREATE METRIC card_5m AS SELECT SUM(amount) AS total "
                + "FROM payments GROUP BY card_id OVER SLIDING 5 MINUTES")).metric());
        io.coilgun.planner.model.SinkDef k = ((CreateSinkStatement) compile("CREATE SINK card_out FROM card_5m INTO "
                + "KAFKA TOPIC 'card.features' WITH (format = 'JSON')")).sink();
        assertEquals(new io.coilgun.planner.model.SinkDef("card_out", "card_5m", "payments", false, "card.features",
                "CREATE SINK card_out FROM card_5m INTO KAFKA TOPIC 'card.features' WITH (format = 'JSON')", -1), k);
        assertEquals("coilgun.sink.card_out.42", k.withId(42).group());
        io.coilgun.planner.model.SinkDef all = ((CreateSinkStatement) compile("create sink if not exists p_out from "
                + "payments into kafka topic 'p'")).sink();
        assertTrue(all.wholeStream());
        catalog.addSink(k);
        error("CREATE SINK x FROM nothing INTO KAFKA TOPIC 't'", "42P01");
        error("CREATE SINK x FROM card_5m INTO KAFKA TOPIC 'coilgun.nodes'", "22023");
        error("CREATE SINK x FROM card_5m INTO KAFKA TOPIC 'a b'", "22023");
        error("CREATE SINK x FROM card_5m INTO KAFKA TOPIC 't' WITH (format = 'avro')", "22023");
        error("CREATE SINK x FROM card_5m INTO KAFKA TOPIC 't' WITH (partitions = 3)", "22023");
        error("CREATE SINK x FROM card_5m INTO TOPIC 't'", "42601");
        // what a sink reads cannot go before the sink
        error("DROP METRIC card_5m", "2BP01");
        error("DROP STREAM payments", "2BP01");
        error("DROP SINK nothing", "42704");
        assertEquals(new DropSinkStatement("nothing", true), compile("DROP SINK IF EXISTS nothing"));
        RowsStatement shown = (RowsStatement) compile("SHOW SINKS");
        assertEquals(List.of("name", "input", "kind", "topic", "format"), shown.columns());
        assertArrayEquals(new String[] {"card_out", "card_5m", "metric", "card.features", "json"}, shown.rows().get(0));
        // the new words stay names
        compile("CREATE STREAM kafka (sink TEXT, topic TIMESTAMP) WITH (partition_by = 'sink')");
    }

    @Test
    void rolesAndGrants() {
        catalog.addMetric(((CreateMetricStatement) compile("CREATE METRIC card_5m AS SELECT SUM(amount) AS total "
                + "FROM payments GROUP BY card_id OVER SLIDING 5 MINUTES")).metric());
        assertEquals(new RoleStatement(SqlRoleStatement.Verb.CREATE, List.of("analyst"), false, null, true,
                "pw", false), compile("CREATE ROLE analyst WITH LOGIN PASSWORD 'pw'"));
        assertEquals(new RoleStatement(SqlRoleStatement.Verb.CREATE, List.of("bob"), false, true, true, null, false),
                compile("create user bob superuser"), "CREATE USER logs in unless told NOLOGIN");
        assertEquals(new RoleStatement(SqlRoleStatement.Verb.CREATE, List.of("svc"), false, null, false, null, false),
                compile("CREATE ROLE svc"));
        catalog.roles().put(new io.coilgun.planner.model.RoleDef("analyst", false, true, null));
        error("CREATE ROLE analyst", "42710");
        error("CREATE ROLE x CREATEDB", "0A000");
        error("CREATE ROLE x FLY", "42601");
        error("CREATE ROLE public", "42602");
        error("CREATE ROLE \"a:b\"", "42602");
        error("CREATE ROLE a, b", "42601");
        error("ALTER ROLE nobody LOGIN", "42704");
        error("DROP ROLE nobody", "42704");
        error("DROP ROLE analyst LOGIN", "42601");
        assertEquals(new RoleStatement(SqlRoleStatement.Verb.ALTER, List.of("analyst"), false, null, null, null, true),
                compile("ALTER ROLE analyst PASSWORD NULL"));
        assertEquals(new RoleStatement(SqlRoleStatement.Verb.DROP, List.of("analyst", "nobody"), true, null, null,
                null, false), compile("DROP ROLE IF EXISTS analyst, nobody"));
        Set<Privilege> select = Set.of(Privilege.SELECT);
        assertEquals(new GrantStatement(true, select, List.of("card_5m", "coilgun.tasks"), List.of("analyst",
                "public")), compile("GRANT SELECT ON card_5m, coilgun.tasks TO analyst, public"));
        assertEquals(new GrantStatement(false, Set.of(Privilege.SELECT, Privilege.INSERT), List.of("payments"),
                List.of("analyst")), compile("REVOKE ALL PRIVILEGES ON TABLE public.payments FROM analyst"));
        assertEquals(new GrantStatement(true, Set.of(Privilege.CREATE), List.of(Roles.SCHEMA_PUBLIC),
                List.of("analyst")), compile("GRANT CREATE ON SCHEMA public TO analyst"));
        error("GRANT SELECT ON nothing TO analyst", "42P01");
        error("GRANT SELECT ON coilgun.nothing TO analyst", "42P01");
        error("GRANT INSERT ON card_5m TO analyst", "42809");
        error("GRANT CREATE ON payments TO analyst", "22023");
        error("GRANT SELECT ON SCHEMA public TO analyst", "22023");
        error("GRANT CREATE ON SCHEMA other TO analyst", "42704");
        error("GRANT UPDATE ON payments TO analyst", "0A000");
        error("GRANT SELECT ON payments TO nobody", "42704");
        error("GRANT analyst TO nobody", "42601");
        // the words stay names
        compile("CREATE STREAM login (superuser TEXT, password TIMESTAMP) WITH (partition_by = 'superuser')");
    }

    @Test
    void createStreamDefaults() {
        StreamDef s = ((CreateStreamStatement) compile(
                "CREATE STREAM clicks (happened TIMESTAMP, user_id TEXT) WITH (partition_by = 'user_id')")).stream();
        assertEquals(0, s.eventTimeIndex(), "the only TIMESTAMP column is the event time");
        assertEquals(-1, s.eventIdIndex(), "ids assigned on ingest");
        assertEquals(StreamDef.DEFAULT_PARTITIONS, s.partitions());
        assertEquals(StreamDef.DEFAULT_LATENESS_MICROS, s.latenessMicros());
        assertEquals(LatePolicy.REJECT, s.latePolicy());
        assertEquals(0, s.backfillHorizonMicros());
        assertEquals(30L * 86_400_000_000L, ((CreateStreamStatement) compile("CREATE STREAM c2 (t TIMESTAMP, "
                + "k TEXT) WITH (partition_by = 'k', backfill_horizon = '30 days')")).stream().backfillHorizonMicros());
    }

    @Test
    void eachPartitionerTopicMayHaveItsOwnPartitions() {
        StreamDef s = ((CreateStreamStatement) compile("CREATE STREAM pay (t TIMESTAMP, card TEXT, shop TEXT, dev TEXT) "
                + "WITH (partition_by = 'card, shop, dev', partitions = 'card 8, Shop 2')")).stream();
        assertEquals(8, s.partitions("card"));
        assertEquals(2, s.partitions("shop"));
        assertEquals(StreamDef.DEFAULT_PARTITIONS, s.partitions("dev"), "one not named: the default");
        String head = "CREATE STREAM s (t TIMESTAMP, k VARCHAR) WITH (partition_by = 'k', partitions = ";
        error(head + "'x 2')", "22023"); // not a partition_by field
        error(head + "'k 2, k 3')", "22023");
        error(head + "'k 0')", "22023");
        error(head + "'k')", "22023");
    }

    @Test
    void createStreamErrors() {
        error("CREATE STREAM s (t TIMESTAMP, k VARCHAR)", "42P17");
        error("CREATE STREAM s (t TIMESTAMP, k VARCHAR) WITH (partition_by = 'nope')", "42703");
        error("CREATE STREAM s (t TIMESTAMP, k VARCHAR) WITH (partition_by = 'k', colour = 'red')", "22023");
        error("CREATE STREAM s (t TIMESTAMP, k VARCHAR) WITH (partition_by = 'k', partitions = 0)", "22023");
        error("CREATE STREAM s (t TIMESTAMP, k VARCHAR) WITH (partition_by = 'k', lateness = 'soon')", "22023");
        error("CREATE STREAM s (t TIMESTAMP, k VARCHAR) WITH (partition_by = 'k', late_events = 'ignore')", "22023");
        error("CREATE STREAM s (t TIMESTAMP, k VARCHAR, k BIGINT) WITH (partition_by = 'k')", "42701");
        error("CREATE STREAM s (t BIGINT, k VARCHAR) WITH (partition_by = 'k', event_time = 't')", "42P17");
        error("CREATE STREAM s (t TIMESTAMP, u TIMESTAMP, k VARCHAR) WITH (partition_by = 'k')", "42P17");
        error("CREATE STREAM s (t TIMESTAMP, k VARCHAR, x DOUBLE) WITH (partition_by = 'k', event_id = 'x')", "42P17");
        error("CREATE STREAM s (t TIMESTAMP, k GEOMETRY) WITH (partition_by = 'k')", "42704");
        CoilgunException e = error("CREATE STREAM \"my stream\" (t TIMESTAMP, k VARCHAR) WITH (partition_by = 'k')",
                "42602");
        assertEquals(15, e.position());
    }

    @Test
    void createMetric() {
        MetricDef m = ((CreateMetricStatement) compile("CREATE METRIC m AS SELECT SUM(amount) AS total, COUNT(*), "
                + "AVG(n), SUM(n) AS ns, COUNT(merchant_id) AS c FROM payments "
                + "GROUP BY merchant_id, card_id OVER SLIDING 90 SECONDS")).metric();
        assertEquals("payments", m.stream());
        assertEquals("merchant_id", m.partitioner(), "the first group-by field that is a partitioner");
        assertEquals(java.util.List.of(3, 2), m.groupBy());
        assertEquals(WindowSpec.sliding(90_000_000L), m.window());
        assertEquals(AggregationKind.SUM, m.aggregations().get(0).kind());
        assertEquals(ColumnType.DOUBLE, m.aggregations().get(0).resultType());
        assertEquals(AggregationKind.COUNT_STAR, m.aggregations().get(1).kind());
        assertEquals("count", m.aggregations().get(1).name());
        assertEquals(ColumnType.DOUBLE, m.aggregations().get(2).resultType(), "AVG of integers is a double");
        assertEquals(ColumnType.BIGINT, m.aggregations().get(3).resultType(), "SUM of integers is exact");
        assertEquals(AggregationKind.COUNT, m.aggregations().get(4).kind());
        assertEquals("m_total", m.outputColumn(0));
    }

    @Test
    void createMetricErrors() {
        String tail = " FROM payments GROUP BY card_id OVER SLIDING 5 MINUTES";
        error("CREATE METRIC m AS SELECT SUM(amount) AS t FROM nope GROUP BY card_id OVER SLIDING 5 MINUTES", "42P01");
        assertEquals(31, error("CREATE METRIC m AS SELECT SUM(amt) AS t" + tail, "42703").position());
        error("CREATE METRIC m AS SELECT SUM(card_id)" + tail, "42883");
        error("CREATE METRIC m AS SELECT MEDIAN(amount)" + tail, "42883");
        error("CREATE METRIC m AS SELECT STDDEV(card_id)" + tail, "42883");
        error("CREATE METRIC m AS SELECT card_id, SUM(amount)" + tail, "42803");
        error("CREATE METRIC m AS SELECT SUM(amount), SUM(n)" + tail, "42701");
        error("CREATE METRIC m AS SELECT SUM(amount) FROM payments OVER SLIDING 5 MINUTES", "42803");
        error("CREATE METRIC m AS SELECT SUM(amount) FROM payments GROUP BY id OVER SLIDING 5 MINUTES", "42803");
    }

    @Test
    void filtersAndExpressionArguments() {
        MetricDef m = ((CreateMetricStatement) compile("CREATE METRIC big AS SELECT SUM(amount * 2) AS double_total, "
                + "SUM(n + 1) AS n1, COUNT(*) FROM payments WHERE amount > 100 AND card_id LIKE 'c%' "
                + "AND merchant_id IN ('m1', 'm2') AND n IS NOT NULL GROUP BY card_id OVER SLIDING 1 HOUR")).metric();
        assertEquals("sql:mul(c_amount, 2L)", m.aggregations().get(0).expression());
        assertEquals(ColumnType.DOUBLE, m.aggregations().get(0).resultType());
        assertEquals("sql:add(c_n, 1L)", m.aggregations().get(1).expression());
        // integer expressions are bigint (computed in 64 bits), and sum(bigint) is numeric: exact, as in Postgres
        assertEquals(ColumnType.NUMERIC, m.aggregations().get(1).resultType(), "integer expression: exact sum");
        assertEquals("sql:all(sql:all(sql:all(sql:greater(c_amount, sql:toDouble(100L)), "
                + "sql:like(c_card_id, '\\\\Qc\\\\E.*')), sql:oneOf(c_merchant_id, 'm1', 'm2')), !sql:isNull(c_n))",
                m.filter());
        String tail = " GROUP BY card_id OVER SLIDING 5 MINUTES";
        assertEquals(56, error("CREATE METRIC m AS SELECT COUNT(*) FROM payments WHERE amt > 1" + tail, "42703")
                .position());
        error("CREATE METRIC m AS SELECT SUM(card_id || 'x') FROM payments" + tail, "42883");
        error("CREATE METRIC m AS SELECT COUNT(*) FROM payments WHERE nosuchfn(amount) > 1" + tail, "42883");
        error("CREATE METRIC m AS SELECT COUNT(*) FROM payments WHERE amount" + tail, "42804");
    }

    /** Compiles a WHERE clause and evaluates its translation on one row of payments. */
    boolean keeps(String where, Object... row) {
        MetricDef m = ((CreateMetricStatement) compile("CREATE METRIC m AS SELECT COUNT(*) FROM payments WHERE "
                + where + " GROUP BY card_id OVER SLIDING 1 HOUR")).metric();
        return io.coilgun.planner.expr.Expressions.compile(m.filter(),
                catalog.stream("payments").orElseThrow().columns().stream().map(c -> c.name()).toList()).test(row);
    }

    @Test
    void filtersFollowSqlNullSemantics() {
        Object[] big = {1L, 0L, "c1", "m1", 150.0, 3};
        Object[] noAmount = {2L, 0L, "c1", "m2", null, null};
        assertTrue(keeps("amount > 100", big));
        assertFalse(keeps("amount > 100", noAmount), "NULL > 100 is unknown: not kept");
        assertFalse(keeps("NOT (amount > 100)", noAmount), "NOT unknown is unknown");
        assertTrue(keeps("amount IS NULL", noAmount));
        assertTrue(keeps("amount > 100 OR merchant_id = 'm2'", noAmount), "unknown OR true is true");
        assertFalse(keeps("amount > 100 AND merchant_id = 'm2'", noAmount));
        assertTrue(keeps("n BETWEEN 1 AND 3 AND n / 2 = 1", big), "integer division");
        assertTrue(keeps("card_id LIKE 'c_' AND merchant_id NOT IN ('m2', 'm3')", big));
        assertTrue(keeps("CASE WHEN amount > 100 THEN 'big' ELSE 'small' END = 'big'", big));
        assertTrue(keeps("UPPER(card_id) = 'C1' AND ABS(-amount) = 150", big));
        assertFalse(keeps("card_id LIKE '%x%'", big));
    }

    @Test
    void minMaxLastPrev() {
        MetricDef m = ((CreateMetricStatement) compile("CREATE METRIC m AS SELECT MIN(amount) AS lo, MAX(n) AS hi, "
                + "LAST(merchant_id) AS last_merchant, PREV(ts) AS prev_ts, MIN(amount * n) AS x FROM payments "
                + "GROUP BY card_id OVER SLIDING 5 MINUTES")).metric();
        assertEquals(AggregationKind.MIN, m.aggregations().get(0).kind());
        assertEquals(ColumnType.DOUBLE, m.aggregations().get(0).resultType());
        assertEquals(ColumnType.INTEGER, m.aggregations().get(1).resultType(), "max(int4) is int4, as in Postgres");
        assertEquals(AggregationKind.LAST, m.aggregations().get(2).kind());
        assertEquals(ColumnType.VARCHAR, m.aggregations().get(2).resultType());
        assertEquals(AggregationKind.PREV, m.aggregations().get(3).kind());
        assertEquals(ColumnType.TIMESTAMP, m.aggregations().get(3).resultType());
        assertEquals("sql:mul(c_amount, c_n)", m.aggregations().get(4).expression());
        MetricDef d = ((CreateMetricStatement) compile("CREATE METRIC d AS SELECT COUNT(DISTINCT merchant_id) AS "
                + "merchants FROM payments GROUP BY card_id OVER INFINITE")).metric();
        assertEquals(AggregationKind.COUNT_DISTINCT, d.aggregations().get(0).kind());
        assertEquals(ColumnType.BIGINT, d.aggregations().get(0).resultType());
    }

    @Test
    void explainShowsTheTaskPlan() {
        for (String ddl : new String[] {
            "CREATE METRIC card_5m AS SELECT SUM(amount) AS total, COUNT(*) AS n FROM payments GROUP BY card_id "
                    + "OVER SLIDING 5 MINUTES",
            "CREATE METRIC big_5m AS SELECT COUNT(*) AS n FROM payments WHERE amount > 100 GROUP BY card_id "
                    + "OVER SLIDING 5 MINUTES",
            "CREATE METRIC merchant_1h AS SELECT MAX(amount * 2) AS hi FROM payments GROUP BY merchant_id "
                    + "OVER TUMBLING 1 HOUR DELAYED BY 1 MINUTE"}) {
            catalog.addMetric(((CreateMetricStatement) compile(ddl)).metric());
        }
        List<String> plan = ((ExplainStatement) compile("EXPLAIN STREAM payments")).lines();
        String text = String.join("\n", plan);
        System.out.println(text);
        assertTrue(text.contains("  Window SLIDING 5 MINUTES\n    Filter (none)\n      Group by card_id\n"
                + "        Aggregate card_5m: SUM(\"amount\") AS \"total\", COUNT(*) AS \"n\"\n"
                + "    Filter \"amount\" > 100\n      Group by card_id\n        Aggregate big_5m"), text);
        assertTrue(text.contains("lag 5 MINUTES: card_5m tail, big_5m tail  (shared)"), text);
        assertTrue(text.contains("Task plan of topic coilgun.stream.payments.merchant_id"), text);
        assertTrue(text.contains("Decider of topic coilgun.stream.payments.-decide (one task)"), text);
        assertTrue(text.contains("lag 1 MINUTE: merchant_1h head"), text);
        List<String> one = ((ExplainStatement) compile("EXPLAIN METRIC big_5m")).lines();
        assertTrue(String.join("\n", one).contains("Aggregate big_5m: COUNT(*) AS \"n\"  <--"), one.toString());
        error("EXPLAIN METRIC nope", "42P01");
    }

    @Test
    void everyWindowKind() {
        String head = "CREATE METRIC m AS SELECT STDDEV(amount), STDDEV_POP(amount) FROM payments GROUP BY card_id OVER ";
        assertEquals(new WindowSpec(WindowSpec.Kind.TUMBLING, 3_600_000_000L, 0),
                ((CreateMetricStatement) compile(head + "TUMBLING 1 HOUR")).metric().window());
        assertEquals(new WindowSpec(WindowSpec.Kind.INFINITE, 0, 600_000_000L),
                ((CreateMetricStatement) compile(head + "INFINITE DELAYED BY 10 MINUTES")).metric().window());
        MetricDef m = ((CreateMetricStatement) compile(head + "SLIDING INTERVAL '1' HOUR DELAYED BY 10 MINUTES"))
                .metric();
        assertEquals(new WindowSpec(WindowSpec.Kind.SLIDING, 3_600_000_000L, 600_000_000L), m.window());
        assertEquals(AggregationKind.STDDEV, m.aggregations().get(0).kind());
        assertEquals("stddev_pop", m.aggregations().get(1).name());
    }

    @Test
    void insertConvertsLiteralsAsPostgresAssigns() {
        InsertStatement ins = (InsertStatement) compile("INSERT INTO payments VALUES "
                + "(1, TIMESTAMP '2026-01-01 10:00:00.25', 'c1', 'm1', -10, '7'), "
                + "('2', '2026-01-01T10:00:01', 'c2', 42, '1.5e2', 2.5) RETURNING *");
        assertTrue(ins.returning());
        assertArrayEquals(new Object[] {1L, 1767261600250000L, "c1", "m1", -10.0, 7}, ins.rows().get(0));
        assertArrayEquals(new Object[] {2L, 1767261601000000L, "c2", "42", 150.0, 3}, ins.rows().get(1),
                "2.5 rounds half away from zero into an integer");

        ins = (InsertStatement) compile("INSERT INTO payments (card_id, merchant_id, ts, id) "
                + "VALUES ('c', 'm', DATE '2026-01-02', 9)");
        assertFalse(ins.returning());
        assertArrayEquals(new Object[] {9L, 1767312000000000L, "c", "m", null, null}, ins.rows().get(0));
    }

    @Test
    void insertComputesConstantExpressionsExactly() {
        InsertStatement ins = (InsertStatement) compile("INSERT INTO payments VALUES (10 / 4 + 7 % 4, "
                + "TIMESTAMP '2026-01-02 09:00:00.123456' - INTERVAL '1' HOUR + INTERVAL '0.000001' SECOND, "
                + "upper('c' || 1), 'm' || 7, -5 * 2.5, round(2.5) + abs(-1)), "
                + "(2, TIMESTAMP '2026-01-31 00:00:00' + INTERVAL '1' MONTH, concat('a', NULL, 'b'), "
                + "coalesce(NULL, trim('  x  ')), 10.0 / 4, length('héllo'))");
        assertArrayEquals(new Object[] {5L, 1767340800123457L, "C1", "m7", -12.5, 4}, ins.rows().get(0));
        // 2026-01-31 plus a month is 2026-02-28, as in Postgres
        assertArrayEquals(new Object[] {2L, 1772236800000000L, "ab", "x", 2.5, 5}, ins.rows().get(1));
        // types as Postgres types them: integer division only between integers; casts to integers round
        ins = (InsertStatement) compile("INSERT INTO payments VALUES (CAST(3.7 AS integer) * 2, "
                + "TIMESTAMP '2026-01-01 00:00:00', 'c', 'm', 10.0 / 5 / 4 + 1e3 / 8 + CAST(7 AS double) / 2, "
                + "greatest(1, NULL, 3) + coalesce(nullif(1.0, 1), 5))");
        assertArrayEquals(new Object[] {8L, 1767225600000000L, "c", "m", 129.0, 8}, ins.rows().get(0));
        error("INSERT INTO payments VALUES (1, " + "TIMESTAMP '2026-01-01 00:00:00', 'c', 'm', 1e400000000 + 1, 1)",
                "22003");
        error("INSERT INTO payments VALUES (1, " + "TIMESTAMP '2026-01-01 00:00:00', 'c', 'm', abs(), 1)", "42883");
        ins = (InsertStatement) compile("INSERT INTO payments VALUES (1, now() - INTERVAL '5' MINUTE, 'c', 'm', "
                + "1, NULL)");
        assertEquals(1780271700000000L, ins.rows().get(0)[1], "the clock is 2026-06-01 00:00 here");
    }

    @Test
    void numericColumnsKeepExactDecimalsAsPostgresStoresThem() {
        StreamDef s = ((CreateStreamStatement) compile("CREATE STREAM money (id BIGINT, ts TIMESTAMP, k VARCHAR, "
                + "price NUMERIC(8, 2), rate DECIMAL, whole NUMERIC(5)) WITH (partition_by = 'k')")).stream();
        assertEquals("id BIGINT, ts TIMESTAMP, k VARCHAR, price NUMERIC(8,2), rate NUMERIC, whole NUMERIC(5,0)",
                String.join(", ", s.columns().stream().map(c -> c.name() + " " + c.typeName()).toList()));
        catalog.addStream(s);
        String ts = "TIMESTAMP '2026-01-01 10:00:00'";
        InsertStatement ins = (InsertStatement) compile("INSERT INTO money VALUES (1, " + ts + ", 'a', 12.345, "
                + "'1.50', 2.5), (2, " + ts + ", 'b', '-0.005', 12345678901234567890.123456789, '-2.5'), (3, " + ts
                + ", 'c', 7, 1e3, 0)");
        // rounded half away from zero to the column's scale; an unconstrained value keeps its own
        assertEquals(List.of(new BigDecimal("12.35"), new BigDecimal("1.50"), new BigDecimal("3")),
                List.of(ins.rows().get(0)).subList(3, 6));
        assertEquals(List.of(new BigDecimal("-0.01"), new BigDecimal("12345678901234567890.123456789"),
                new BigDecimal("-3")), List.of(ins.rows().get(1)).subList(3, 6));
        assertEquals(List.of(new BigDecimal("7.00"), new BigDecimal("1000"), new BigDecimal("0")),
                List.of(ins.rows().get(2)).subList(3, 6));
        assertTrue(error("INSERT INTO money VALUES (1, " + ts + ", 'a', 1000000, 1, 1)", "22003").getMessage()
                .contains("precision 8, scale 2 must round to an absolute value less than 10^6"));
        error("INSERT INTO money VALUES (1, " + ts + ", 'a', 999999.995, 1, 1)", "22003");
        error("INSERT INTO money VALUES (1, " + ts + ", 'a', 1, 'NaN', 1)", "0A000");
        error("INSERT INTO money VALUES (1, " + ts + ", 'a', 1, 'x1', 1)", "22P02");
        error("CREATE STREAM bad (ts TIMESTAMP, k VARCHAR, x NUMERIC(1001, 2)) WITH (partition_by = 'k')", "22023");
        error("CREATE STREAM bad (ts TIMESTAMP, k VARCHAR, x NUMERIC(4, 5)) WITH (partition_by = 'k')", "22023");
        // sum and avg of numeric are numeric (exact), stddev double precision
        MetricDef m = ((CreateMetricStatement) compile("CREATE METRIC mm AS SELECT SUM(price) AS s, AVG(rate) AS a, "
                + "STDDEV(price) AS d, MAX(rate) AS x, LAST(whole) AS l FROM money GROUP BY k OVER SLIDING 1 HOUR"))
                .metric();
        assertEquals(List.of(ColumnType.NUMERIC, ColumnType.NUMERIC, ColumnType.DOUBLE, ColumnType.NUMERIC,
                ColumnType.NUMERIC), m.aggregations().stream().map(a -> a.resultType()).toList());
    }

    @Test
    void aCatalogRecordOfAnOlderVersionReadsItsNumericColumnsAsDoubles() {
        assertEquals("CREATE STREAM old (ts TIMESTAMP, k VARCHAR, a DOUBLE, b DOUBLE NOT NULL, c INTEGER) WITH "
                + "(partition_by = 'k')", LegacyNumerics.asDouble("CREATE STREAM old (ts TIMESTAMP, k VARCHAR, "
                + "a NUMERIC, b DECIMAL(12, 2) NOT NULL, c INTEGER) WITH (partition_by = 'k')"));
        assertEquals("ALTER STREAM old ADD COLUMN d DOUBLE", LegacyNumerics.asDouble(
                "ALTER STREAM old ADD COLUMN d numeric(3)"));
        assertEquals("CREATE METRIC x AS SELECT SUM(a) AS s FROM old GROUP BY k OVER SLIDING 1 HOUR",
                LegacyNumerics.asDouble("CREATE METRIC x AS SELECT SUM(a) AS s FROM old GROUP BY k OVER SLIDING 1 "
                        + "HOUR"));
    }

    @Test
    void insertErrors() {
        String ts = "TIMESTAMP '2026-01-01 10:00:00'";
        assertEquals(13, error("INSERT INTO paymentz VALUES (1)", "42P01").position());
        assertEquals(23, error("INSERT INTO payments (nope) VALUES (1)", "42703").position());
        error("INSERT INTO payments (id, id) VALUES (1, 2)", "42701");
        error("INSERT INTO payments VALUES (1, " + ts + ", 'c', 'm', 1.0, 1, 2)", "42601");
        error("INSERT INTO payments VALUES (1, " + ts + ", 'c')", "42601");
        assertEquals(30, error("INSERT INTO payments VALUES ('x', " + ts + ", 'c', 'm', 1.0, 1)", "22P02").position());
        error("INSERT INTO payments VALUES (1, " + ts + ", 'c', 'm', TRUE, 1)", "42804");
        error("INSERT INTO payments VALUES (1, 5, 'c', 'm', 1.0, 1)", "42804");
        assertEquals(33, error("INSERT INTO payments VALUES (1, 'soonish', 'c', 'm', 1.0, 1)", "22007").position());
        error("INSERT INTO payments VALUES (1, TIMESTAMP '2026-13-01 00:00:00', 'c', 'm', 1.0, 1)", "22007");
        error("INSERT INTO payments VALUES (99999999999999999999, " + ts + ", 'c', 'm', 1.0, 1)", "22003");
        error("INSERT INTO payments VALUES (1, " + ts + ", 'c', 'm', 1.0, 3000000000)", "22003");
        error("INSERT INTO payments VALUES (1, NULL, 'c', 'm', 1.0, 1)", "23502");
        error("INSERT INTO payments VALUES (NULL, " + ts + ", 'c', 'm', 1.0, 1)", "23502");
        error("INSERT INTO payments VALUES (1, " + ts + ", NULL, 'm', 1.0, 1)", "23502");
        error("INSERT INTO payments (id, ts, card_id) VALUES (1, " + ts + ", 'c')", "23502");
        error("INSERT INTO payments VALUES (1, TIMESTAMP '2026-06-01 00:01:01', 'c', 'm', 1.0, 1)", "22008");
        compile("INSERT INTO payments VALUES (1, TIMESTAMP '2026-06-01 00:01:00', 'c', 'm', 1.0, 1)");
        error("INSERT INTO payments VALUES (1, " + ts + ", 'c', 'm', sqrt(2), 1)", "0A000");
        error("INSERT INTO payments VALUES (1, " + ts + ", 'c', 'm', amount, 1)", "0A000");
        error("INSERT INTO payments VALUES (1, " + ts + ", 'c', 'm', 1 / 0, 1)", "22012");
        error("INSERT INTO payments VALUES (1, " + ts + " + 1, 'c', 'm', 1, 1)", "42883");
        error("INSERT INTO payments VALUES (1, " + ts + ", 'c', 'm', INTERVAL '1' HOUR, 1)", "42804");
        error("INSERT INTO payments SELECT * FROM payments", "0A000");
    }

    @Test
    void alterStreamAddsASchemaVersion() {
        AlterStreamStatement a = (AlterStreamStatement) compile("ALTER STREAM payments ADD COLUMN country VARCHAR");
        StreamDef s = a.stream();
        assertEquals(2, s.schemaVersion());
        assertEquals(6, s.schemaWidth(1));
        assertEquals(7, s.schemaWidth(2));
        assertEquals("country", s.column(6).name());
        assertEquals(ColumnType.VARCHAR, s.column(6).type());
        assertEquals(1, ((AlterStreamStatement) compile("ALTER STREAM payments ADD vip BOOLEAN")).stream()
                .column(6).type() == ColumnType.BOOLEAN ? 1 : 0, "COLUMN is optional");
        catalog.addStream(s);
        InsertStatement ins = (InsertStatement) compile("INSERT INTO payments VALUES "
                + "(1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 1.0, 2, 'PT')");
        assertEquals("PT", ins.rows().get(0)[6]);
        error("ALTER STREAM payments ADD COLUMN amount DOUBLE", "42701");
        error("ALTER STREAM nope ADD COLUMN x DOUBLE", "42P01");
        error("ALTER STREAM payments ADD COLUMN x DOUBLE NOT NULL", "23502");
        error("INSERT INTO payments VALUES (1, TIMESTAMP '2026-01-01 10:00:00', 'c1', 'm1', 1.0, 2)", "42601");
    }

    @Test
    void alterStreamSetsReplicas() {
        AlterStreamStatement a = (AlterStreamStatement) compile("ALTER STREAM payments SET (replicas = 3)");
        assertTrue(a.options());
        assertEquals(3, a.stream().replicas());
        assertEquals(1, a.stream().schemaVersion(), "not a schema version");
        assertEquals(2, ((AlterStreamStatement) compile("alter stream payments set (replicas = '2')")).stream()
                .replicas());
        CoilgunException fixed = error("ALTER STREAM payments SET (partitions = 8)", "0A000");
        assertTrue(fixed.getMessage().contains("cannot be changed"), fixed.getMessage());
        error("ALTER STREAM payments SET (replicas = 9)", "22023");
        error("ALTER STREAM nope SET (replicas = 2)", "42P01");
    }

    @Test
    void alterStreamAddsAndDropsPartitioners() {
        catalog.addStream(((CreateStreamStatement) compile("CREATE STREAM pay (t TIMESTAMP, card TEXT, shop TEXT, "
                + "dev TEXT) WITH (partition_by = 'card, shop', partitions = 4)")).stream());
        AlterStreamStatement add = (AlterStreamStatement) compile("ALTER STREAM pay ADD PARTITION BY Dev WITH "
                + "(partitions = 8)");
        assertEquals("dev", add.partitioner());
        assertFalse(add.dropsPartitioner());
        assertEquals(List.of("card", "shop", "dev"), add.stream().partitionBy());
        assertEquals(List.of("dev"), add.stream().addedPartitionBy());
        assertEquals(8, add.stream().partitions("dev"));
        assertEquals(4, ((AlterStreamStatement) compile("ALTER STREAM pay ADD PARTITION BY dev")).stream()
                .partitions("dev"), "the stream's partitions by default");
        error("ALTER STREAM pay ADD PARTITION BY shop", "42710");
        error("ALTER STREAM pay ADD PARTITION BY nope", "42703");
        error("ALTER STREAM pay ADD PARTITION BY t", "42P17");
        error("ALTER STREAM pay ADD PARTITION BY dev WITH (replicas = 2)", "0A000");
        error("ALTER STREAM pay ADD PARTITION BY dev WITH (partitions = 0)", "22023");
        catalog.addStream(((CreateStreamStatement) compile("CREATE STREAM single (t TIMESTAMP, card TEXT, shop TEXT) "
                + "WITH (partition_by = 'card')")).stream());
        AlterStreamStatement converts = (AlterStreamStatement) compile("ALTER STREAM single ADD PARTITION BY shop");
        assertEquals(List.of("card", "shop"), converts.stream().partitionBy(), "a stream of one key gains a decider");
        assertTrue(converts.stream().decided());
        assertEquals(List.of("shop"), converts.stream().addedPartitionBy());
        error("ALTER STREAM single DROP PARTITION BY card", "0A000");
        catalog.addStream(add.stream());
        AlterStreamStatement drop = (AlterStreamStatement) compile("ALTER STREAM pay DROP PARTITION BY shop");
        assertTrue(drop.dropsPartitioner());
        assertEquals(List.of("card", "dev"), drop.stream().partitionBy());
        error("ALTER STREAM pay DROP PARTITION BY nope", "42704");
        catalog.addMetric(((CreateMetricStatement) compile("CREATE METRIC by_dev AS SELECT COUNT(*) FROM pay "
                + "GROUP BY dev OVER INFINITE")).metric());
        error("ALTER STREAM pay DROP PARTITION BY dev", "2BP01");
        catalog.addStream(drop.stream());
        error("ALTER STREAM pay DROP PARTITION BY card", "0A000"); // two are left
    }

    @Test
    void dropStream() {
        assertEquals(new DropStreamStatement("payments", false, false), compile("DROP STREAM payments"));
        assertEquals(new DropStreamStatement("payments", true, true), compile("DROP STREAM IF EXISTS payments CASCADE"));
        assertEquals(new DropStreamStatement("nope", true, false), compile("DROP STREAM IF EXISTS nope"),
                "IF EXISTS: the node answers the notice");
        CoilgunException unknown = error("DROP STREAM nope", "42P01");
        assertEquals("stream \"nope\" does not exist", unknown.getMessage());
        assertEquals(13, unknown.position());

        catalog.addMetric(((CreateMetricStatement) compile("CREATE METRIC card_5m AS SELECT COUNT(*) FROM payments "
                + "GROUP BY card_id OVER SLIDING 5 MINUTES")).metric());
        catalog.addMetric(((CreateMetricStatement) compile("CREATE METRIC merchant_1h AS SELECT COUNT(*) FROM "
                + "payments GROUP BY merchant_id OVER SLIDING 1 HOUR")).metric());
        for (String sql : new String[] {"DROP STREAM payments", "DROP STREAM payments RESTRICT",
            "DROP STREAM IF EXISTS payments"}) {
            CoilgunException e = error(sql, "2BP01");
            assertEquals("cannot drop stream payments because other objects depend on it", e.getMessage());
            assertEquals("metric card_5m depends on stream payments\nmetric merchant_1h depends on stream payments",
                    e.detail());
            assertEquals("Use DROP ... CASCADE to drop the dependent objects too.", e.hint());
        }
        assertEquals(new DropStreamStatement("payments", false, true), compile("DROP STREAM payments CASCADE"));
        assertEquals("drop cascades to 2 other objects", StreamDrops.cascades(catalog.metricsOf("payments")));
        assertEquals("drop cascades to metric card_5m",
                StreamDrops.cascades(catalog.metricsOf("payments").subList(0, 1)));
        assertEquals(null, StreamDrops.cascades(List.of()));
        assertEquals("stream \"x\" does not exist, skipping", StreamDrops.skipping("x"));
    }

    @Test
    void otherStatements() {
        assertEquals(new SetStatement("extra_float_digits", "3"), compile("SET extra_float_digits = 3"));
        QueryStatement q = (QueryStatement) compile("SELECT version(), 1 + 1, card_id, x AS y FROM t");
        assertEquals(java.util.List.of("version", "?column?", "card_id", "y"), q.columnNames());
        assertEquals(java.util.List.of("current_schema", "oid", "relname"),
                ((QueryStatement) compile("SELECT current_schema, c.oid::regclass, c.relname FROM pg_class c "
                        + "ORDER BY 1")).columnNames());
        error("DELETE FROM payments", "0A000");
    }
}
