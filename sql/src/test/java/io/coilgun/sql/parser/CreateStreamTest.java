package io.coilgun.sql.parser;

import static io.coilgun.sql.parser.ParserTestSupport.assertSyntaxError;
import static io.coilgun.sql.parser.ParserTestSupport.parseOne;
import static io.coilgun.sql.parser.ParserTestSupport.roundTrip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.calcite.sql.SqlCharStringLiteral;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNumericLiteral;
import org.apache.calcite.sql.type.SqlTypeName;
import org.junit.jupiter.api.Test;

class CreateStreamTest {
    private static final String PAYMENTS =
        "CREATE STREAM IF NOT EXISTS payments (id BIGINT, ts TIMESTAMP, card_id VARCHAR, merchant_id VARCHAR, amount DOUBLE)\n"
            + "  WITH (event_time = 'ts', event_id = 'id', partition_by = 'card_id', partitions = 4, lateness = '10 seconds')";

    @Test
    void fullForm() {
        SqlCreateStream s = roundTrip(PAYMENTS, SqlCreateStream.class);
        assertEquals("payments", s.name().getSimple());
        assertTrue(s.ifNotExists());
        assertFalse(s.getReplace());
        assertEquals(SqlKind.OTHER_DDL, s.getKind());

        List<SqlStreamColumn> columns = s.columns();
        assertEquals(List.of("id", "ts", "card_id", "merchant_id", "amount"),
            columns.stream().map(c -> c.name().getSimple()).toList());
        assertEquals(List.of("BIGINT", "TIMESTAMP", "VARCHAR", "VARCHAR", "DOUBLE"),
            columns.stream().map(c -> c.type().getTypeName().getSimple()).toList());
        assertTrue(columns.stream().noneMatch(SqlStreamColumn::notNull));

        List<SqlOption> options = s.options();
        assertEquals(List.of("event_time", "event_id", "partition_by", "partitions", "lateness"),
            options.stream().map(SqlOption::keyName).toList());
        assertEquals(List.of("ts", "id", "card_id", "4", "10 seconds"),
            options.stream().map(SqlOption::valueAsString).toList());
        assertTrue(options.get(0).value() instanceof SqlCharStringLiteral);
        assertTrue(options.get(3).value() instanceof SqlNumericLiteral);
    }

    @Test
    void withoutWithClauseOrIfNotExists() {
        SqlCreateStream s = roundTrip("create stream s (a bigint)", SqlCreateStream.class);
        assertFalse(s.ifNotExists());
        assertTrue(s.options().isEmpty());
        assertEquals(1, s.columns().size());
    }

    @Test
    void columnTypesAndNotNull() {
        SqlCreateStream s = roundTrip("CREATE STREAM s (a INTEGER NOT NULL, b VARCHAR(10) NULL, c DOUBLE PRECISION,"
            + " d DECIMAL(10, 2), e BOOLEAN, f TIMESTAMP, g REAL, h SMALLINT, i DATE, j text)", SqlCreateStream.class);
        List<SqlStreamColumn> c = s.columns();
        assertTrue(c.get(0).notNull());
        assertFalse(c.get(1).notNull());
        assertEquals(10, ((org.apache.calcite.sql.SqlBasicTypeNameSpec) c.get(1).type().getTypeNameSpec()).getPrecision());
        assertEquals("DOUBLE", c.get(2).type().getTypeName().getSimple());
        assertEquals(SqlTypeName.DECIMAL.getName(), c.get(3).type().getTypeName().getSimple());
        // A name Calcite does not know is a user-defined type name, for the compiler to resolve.
        assertEquals("text", c.get(9).type().getTypeName().getSimple());
    }

    @Test
    void optionValues() {
        SqlCreateStream s = parseOne("CREATE STREAM s (a INT) WITH (n = -2, d = 1.50, e = 1e3, t = TRUE, f = false,"
            + " q = 'it''s', \"Key\" = 'x')", SqlCreateStream.class);
        assertEquals(List.of("-2", "1.50", "1000", "true", "false", "it's", "x"),
            s.options().stream().map(SqlOption::valueAsString).toList());
        assertEquals("Key", s.options().get(6).keyName());
        roundTrip(CoilgunParser.toSql(s), SqlCreateStream.class);
    }

    @Test
    void identifiersFoldToLowerCaseUnlessQuoted() {
        SqlCreateStream s = roundTrip("CREATE STREAM Payments (Card_ID VARCHAR, \"MixedCase\" INT) WITH (Event_Time = 'Ts')",
            SqlCreateStream.class);
        assertEquals("payments", s.name().getSimple());
        assertEquals("card_id", s.columns().get(0).name().getSimple());
        assertEquals("MixedCase", s.columns().get(1).name().getSimple());
        assertEquals("event_time", s.options().get(0).keyName());
        assertEquals("Ts", s.options().get(0).valueAsString());
    }

    @Test
    void orReplaceIsKept() {
        SqlCreateStream s = roundTrip("CREATE OR REPLACE STREAM s (a INT)", SqlCreateStream.class);
        assertTrue(s.getReplace());
    }

    @Test
    void newKeywordsAreStillIdentifiers() {
        SqlCreateStream s = roundTrip("CREATE STREAM metric (sliding INT, tumbling INT, infinite INT, delayed INT,"
            + " milliseconds INT, if INT)", SqlCreateStream.class);
        assertEquals("metric", s.name().getSimple());
        assertEquals(6, s.columns().size());
    }

    @Test
    void syntaxErrors() {
        assertSyntaxError("CREATE STREAM s (a BIGINT) WITH (x = )", 38, "syntax error at or near \")\"");
        assertSyntaxError("CREATE STREAM s ()", 18, "syntax error at or near \")\"");
        assertSyntaxError("CREATE STREAM s (a BIGINT) WITH ()", 34, "syntax error at or near \")\"");
        assertSyntaxError("CREATE STREAM s (a BIGINT) WITH (x = y)", 38, "syntax error at or near \"y\"");
        assertSyntaxError("CREATE STREAM s (a BIGINT", 26, "syntax error at end of input");
        assertSyntaxError("CREATE STREEM s (a BIGINT)", 8, "syntax error at or near \"STREEM\"");
    }
}
