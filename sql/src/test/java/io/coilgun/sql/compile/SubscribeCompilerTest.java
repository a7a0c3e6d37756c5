package io.coilgun.sql.compile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.model.Catalog;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.sql.parser.CoilgunParser;
import io.coilgun.sql.parser.ParsedStatement;
import io.coilgun.sql.parser.SqlShowObjects;
import io.coilgun.sql.parser.SqlSubscribe;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** SUBSCRIBE's row shape and WHERE, and COPY (statement) TO STDOUT, parsed and compiled. */
class SubscribeCompilerTest {
    final Catalog catalog = new Catalog();
    final StatementCompiler compiler = new StatementCompiler(catalog,
            new ValueConverter(Clock.fixed(Instant.parse("2026-06-01T00:00:00Z"), ZoneOffset.UTC)));

    @BeforeEach
    void streams() {
        catalog.addStream(((CreateStreamStatement) compile("CREATE STREAM card (ts TIMESTAMP, card VARCHAR, "
                + "amount DOUBLE) WITH (event_time = 'ts', partition_by = 'card')")).stream());
        catalog.addMetric(((CreateMetricStatement) compile("CREATE METRIC card_5m AS SELECT SUM(amount) AS total, "
                + "COUNT(*) AS cnt FROM card GROUP BY card OVER SLIDING 5 MINUTES")).metric());
        catalog.addStream(((CreateStreamStatement) compile(StatementCompilerTest.PAYMENTS)).stream());
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
    void aMetricsRowIsTheEventIdTimeGroupAndValues() {
        SubscribeStatement s = (SubscribeStatement) compile("SUBSCRIBE card_5m");
        assertEquals(List.of("event_id", "ts", "card", "card_5m_total", "card_5m_cnt"), s.columnNames());
        assertEquals(List.of(ColumnType.BIGINT, ColumnType.TIMESTAMP, ColumnType.VARCHAR, ColumnType.DOUBLE,
                ColumnType.BIGINT), s.columnTypes());
        assertArrayEquals(new int[] {-1, 0, 1}, s.eventColumns());
        assertEquals("card", s.partitioner());
        assertNull(s.filter());
        assertEquals("card_5m", ((SubscribeStatement) compile("subscribe to CARD_5M")).metric().name());
    }

    @Test
    void aStreamsRowIsTheEventAndEveryMetricValue() {
        SubscribeStatement s = (SubscribeStatement) compile("SUBSCRIBE card WHERE card_5m_cnt > 1 AND card = 'x'");
        assertEquals(List.of("event_id", "ts", "card", "amount", "card_5m_total", "card_5m_cnt"), s.columnNames());
        assertNull(s.metric());
        assertEquals(1, s.metrics().size());
        assertInstanceOf(String.class, s.filter());
    }

    @Test
    void errors() {
        assertEquals(11, error("SUBSCRIBE nosuch", "42P01").position());
        assertEquals(25, error("SUBSCRIBE card_5m WHERE amount > 1", "42703").position());
        error("SUBSCRIBE payments", "0A000"); // partitioned by two fields
        error("SUBSCRIBE card_5m WHERE card > 1 +", "42601");
        error("COPY card TO STDOUT", "0A000");
        error("COPY (SHOW STREAMS) TO STDOUT (HEADER match)", "0A000");
        error("COPY (SHOW STREAMS) TO STDOUT (FORMAT 'binary')", "0A000");
        error("COPY (SHOW STREAMS) TO STDOUT (FORMAT xml)", "22023");
        error("COPY (SHOW STREAMS) TO STDOUT (DELIMITER ',', DELIMITER ';')", "42601");
    }

    @Test
    void copyToTakesAnyStatementAndItsOptions() {
        CopyToStatement c = (CopyToStatement) compile("COPY (SUBSCRIBE card_5m WHERE card = 'a') TO STDOUT");
        assertInstanceOf(SqlSubscribe.class, c.query());
        assertEquals(Map.of(), c.options());
        c = (CopyToStatement) compile("copy (show streams) to stdout with (format csv, header true, delimiter ';')");
        assertInstanceOf(SqlShowObjects.class, c.query());
        assertEquals(Map.of("format", "csv", "header", "true", "delimiter", ";"), c.options());
        c = (CopyToStatement) compile("COPY (SHOW METRICS) TO STDOUT CSV HEADER");
        assertEquals(Map.of("format", "csv", "header", "true"), c.options());
        assertEquals("COPY (SELECT *\nFROM \"t\") TO STDOUT", CoilgunParser.toSql(
                CoilgunParser.parse("COPY (SELECT * FROM t) TO STDOUT").get(0).node()));
    }
}
