package io.coilgun.sql.parser;

import static io.coilgun.sql.parser.ParserTestSupport.assertSyntaxError;
import static io.coilgun.sql.parser.ParserTestSupport.parseError;
import static io.coilgun.sql.parser.ParserTestSupport.parseOne;
import static io.coilgun.sql.parser.ParserTestSupport.roundTrip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.util.List;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlExplain;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlInsert;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSetOption;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.junit.jupiter.api.Test;

class StatementsTest {
    @Test
    void emptyInputs() {
        for (String sql : new String[] {"", "   ", "\n\t", ";", " ; ;; ", "-- only a comment", "/* block */ ;",
            "-- a\n-- b\n"}) {
            assertEquals(List.of(), CoilgunParser.parseStatements(sql), sql);
        }
    }

    @Test
    void dropStream() {
        SqlDropStream plain = parseOne("DROP STREAM payments", SqlDropStream.class);
        assertEquals("payments", plain.name().getSimple());
        assertTrue(!plain.ifExists() && !plain.cascade());
        assertEquals("DROP STREAM \"payments\"", CoilgunParser.toSql(plain));
        SqlDropStream all = parseOne("drop stream if exists Payments cascade", SqlDropStream.class);
        assertEquals("payments", all.name().getSimple(), "folded to lower case");
        assertTrue(all.ifExists() && all.cascade());
        assertEquals("DROP STREAM IF EXISTS \"payments\" CASCADE", CoilgunParser.toSql(all));
        assertTrue(!parseOne("DROP STREAM payments RESTRICT", SqlDropStream.class).cascade());
        assertEquals("payments", parseOne("DROP STREAM payments;", SqlDropStream.class).name().getSimple());
        parseError("DROP STREAM payments CASCADE RESTRICT");
        parseError("DROP STREAM");
        parseError("DROP STREAM a, b");
    }

    @Test
    void setStatements() {
        SqlSetOption set = roundTrip("SET extra_float_digits = 3", SqlSetOption.class);
        assertEquals("extra_float_digits", set.getName().getSimple());
        assertEquals("3", ((SqlLiteral) set.getValue()).toValue());

        set = roundTrip("SET application_name = 'PostgreSQL JDBC Driver'", SqlSetOption.class);
        assertEquals("application_name", set.getName().getSimple());
        assertEquals("PostgreSQL JDBC Driver", ((SqlLiteral) set.getValue()).getValueAs(String.class));
    }

    @Test
    void transactionStatements() {
        String[][] cases = {{"BEGIN", "BEGIN"}, {"begin work", "BEGIN"}, {"START TRANSACTION", "BEGIN"},
            {"BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY", "BEGIN"}, {"COMMIT", "COMMIT"},
            {"END TRANSACTION", "COMMIT"}, {"ROLLBACK", "ROLLBACK"}, {"rollback work", "ROLLBACK"}};
        for (String[] c : cases) {
            assertEquals(c[1], ((SqlTransaction) parseOne(c[0])).kind().name(), c[0]);
        }
        String[][] savepoints = {{"SAVEPOINT a", "SAVEPOINT", "a"}, {"savepoint \"_pg3_1\"", "SAVEPOINT", "_pg3_1"},
            {"RELEASE SAVEPOINT sa_savepoint_1", "RELEASE", "sa_savepoint_1"}, {"release a", "RELEASE", "a"},
            {"ROLLBACK TO SAVEPOINT a", "ROLLBACK_TO", "a"}, {"rollback work to a", "ROLLBACK_TO", "a"},
            {"ROLLBACK TRANSACTION TO SAVEPOINT JDBC_SAVEPOINT_1", "ROLLBACK_TO", "jdbc_savepoint_1"}};
        for (String[] c : savepoints) {
            SqlTransaction tx = (SqlTransaction) parseOne(c[0]);
            assertEquals(c[1], tx.kind().name(), c[0]);
            assertEquals(c[2], tx.savepoint(), c[0]);
        }
        List<ParsedStatement> two = CoilgunParser.parse("BEGIN; COMMIT");
        assertEquals(2, two.size());
        assertEquals("BEGIN", two.get(0).text());
    }

    @Test
    void showParameters() {
        assertEquals("transaction_isolation", ((SqlShowObjects) parseOne("SHOW TRANSACTION ISOLATION LEVEL")).what());
        assertEquals("all", ((SqlShowObjects) parseOne("SHOW ALL")).what());
        assertEquals("datestyle", ((SqlShowObjects) parseOne("show DateStyle")).what());
        assertTrue(((SqlShowObjects) parseOne("SHOW metrics")).metrics());
    }

    @Test
    void copyFromStdin() {
        SqlCopy copy = (SqlCopy) parseOne("COPY payments (id, ts) FROM STDIN WITH (FORMAT csv, HEADER match, "
            + "DELIMITER ';', NULL 'x', ESCAPE '\\')");
        assertEquals("payments", copy.name().getSimple());
        assertEquals(2, copy.columns().size());
        assertEquals(List.of("format=csv", "header=match", "delimiter=;", "null=x", "escape=\\"),
            copy.options().stream().map(o -> o.keyName() + "=" + o.valueAsString()).toList());
        copy = (SqlCopy) parseOne("COPY payments FROM STDIN CSV HEADER DELIMITER AS ','");
        assertEquals(List.of("csv=true", "header=true", "delimiter=,"),
            copy.options().stream().map(o -> o.keyName() + "=" + o.valueAsString()).toList());
        assertEquals(0, ((SqlCopy) parseOne("copy payments from stdin")).options().size());
    }

    @Test
    void parameterMarkers() {
        List<ParsedStatement> parsed = CoilgunParser.parse(
            "INSERT INTO t VALUES ($2, '$1', \"$3\", $1) -- $9\n; INSERT INTO t VALUES ($10)");
        assertEquals(2, parsed.size());
        assertEquals("INSERT INTO t VALUES ($2, '$1', \"$3\", $1)", parsed.get(0).text());
        assertEquals(List.of(2, 1, 10), java.util.Arrays.stream(parsed.get(0).parameterNumbers()).boxed().toList());
        assertEquals(10, parsed.get(1).parameterCount());
        CoilgunException e = parseError("INSERT INTO t VALUES ($1 $2)");
        assertEquals(SqlState.SYNTAX_ERROR, e.state());
        assertEquals(26, e.position());
    }

    @Test
    void calciteStatementsStillParse() {
        SqlSelect select = roundTrip("SELECT SUM(amount) AS total, COUNT(*) AS n FROM payments WHERE amount > 100"
            + " GROUP BY card_id", SqlSelect.class);
        SqlBasicCall count = ((SqlBasicCall) select.getSelectList().get(1)).operand(0);
        assertEquals("count", count.getOperator().getName());
        assertTrue(((SqlIdentifier) count.operand(0)).isStar());
        roundTrip("SELECT CAST(a AS DOUBLE), CAST(b AS DOUBLE PRECISION) FROM t", SqlSelect.class);
        roundTrip("SELECT 1", SqlSelect.class);
        roundTrip("SELECT a FROM t ORDER BY a DESC LIMIT 10", SqlOrderBy.class);
        roundTrip("SELECT a <> b, a != b, 5 % 2 FROM t", SqlSelect.class);
        roundTrip("EXPLAIN PLAN FOR SELECT * FROM payments", SqlExplain.class);
        roundTrip("SELECT STREAM * FROM payments", SqlSelect.class);
    }

    @Test
    void unquotedIdentifiersAreLowerCased() {
        SqlSelect select = parseOne("SELECT Card_Id, \"Card_Id\", PAYMENTS.Amount FROM Payments", SqlSelect.class);
        assertEquals("card_id", ((SqlIdentifier) select.getSelectList().get(0)).getSimple());
        assertEquals("Card_Id", ((SqlIdentifier) select.getSelectList().get(1)).getSimple());
        assertEquals(List.of("payments", "amount"), ((SqlIdentifier) select.getSelectList().get(2)).names);
        assertEquals("payments", ((SqlIdentifier) select.getFrom()).getSimple());
    }

    @Test
    void multipleStatements() {
        String sql = "CREATE STREAM s (a BIGINT);\n"
            + "INSERT INTO s VALUES (1) RETURNING * ;  SET x = 1;\n"
            + "CREATE METRIC m AS SELECT COUNT(*) FROM s OVER INFINITE;\n"
            + "SELECT a FROM s";
        List<ParsedStatement> statements = CoilgunParser.parse(sql);
        assertEquals(5, statements.size());
        assertInstanceOf(SqlCreateStream.class, statements.get(0).node());
        assertInstanceOf(SqlInsertReturning.class, statements.get(1).node());
        assertInstanceOf(SqlSetOption.class, statements.get(2).node());
        assertInstanceOf(SqlCreateMetric.class, statements.get(3).node());
        assertInstanceOf(SqlSelect.class, statements.get(4).node());

        assertEquals(List.of("CREATE STREAM s (a BIGINT)", "INSERT INTO s VALUES (1) RETURNING *", "SET x = 1",
                "CREATE METRIC m AS SELECT COUNT(*) FROM s OVER INFINITE", "SELECT a FROM s"),
            statements.stream().map(ParsedStatement::text).toList());
        for (ParsedStatement statement : statements) {
            assertEquals(statement.text(), sql.substring(statement.position() - 1,
                statement.position() - 1 + statement.text().length()));
        }
        assertEquals(5, CoilgunParser.parseStatements(sql + ";").size());
        assertEquals(5, CoilgunParser.parseStatements(sql + " ;\n -- done\n").size());
    }

    @Test
    void statementTextKeepsInnerCommentsAndLines() {
        String sql = "  /* lead */ SELECT a -- x\n  FROM t /* tail */ ; SELECT 'a;b'";
        List<ParsedStatement> statements = CoilgunParser.parse(sql);
        assertEquals("SELECT a -- x\n  FROM t", statements.get(0).text());
        assertEquals(14, statements.get(0).position());
        assertEquals("SELECT 'a;b'", statements.get(1).text());
    }

    @Test
    void errorInSecondStatementHasOffsetInWholeString() {
        String sql = "SELECT 1 FROM t;\nSELECT a FROM t WHERE WHERE";
        assertSyntaxError(sql, sql.lastIndexOf("WHERE") + 1, "syntax error at or near \"WHERE\"");

        sql = "SELECT 1;\r\n\tSELECT a FROMM t";
        assertSyntaxError(sql, sql.indexOf(" t") + 2, "syntax error at or near \"t\"");

        sql = "SELECT 1; SELECT (";
        assertSyntaxError(sql, sql.length() + 1, "syntax error at end of input");
    }

    @Test
    void syntaxErrorMessages() {
        assertSyntaxError("SELEC 1", 1, "syntax error at or near \"SELEC\"");
        assertSyntaxError("SELECT * FROM t WHERE", 22, "syntax error at end of input");
        assertSyntaxError("SELECT # FROM t", 8, "syntax error at or near \"#\"");
        assertSyntaxError("SELECT * FROM t AS returning", 20, "syntax error at or near \"returning\"");
    }

    @Test
    void deeplyNestedInputIsAnErrorNotACrash() {
        String sql = "SELECT " + "(".repeat(20_000) + "1" + ")".repeat(20_000);
        CoilgunException e = parseError(sql);
        assertEquals(SqlState.SYNTAX_ERROR, e.state());
    }

    @Test
    void offsetOfNodePositions() {
        String sql = "SELECT 1;\nSELECT a,\n\tbogus FROM t";
        SqlSelect select = (SqlSelect) CoilgunParser.parseStatements(sql).get(1);
        SqlNode bogus = select.getSelectList().get(1);
        assertEquals(sql.indexOf("bogus") + 1, CoilgunParser.offsetOf(sql, bogus.getParserPosition()));
        assertEquals(0, CoilgunParser.offsetOf(sql, SqlParserPos.ZERO));
        assertEquals(0, CoilgunParser.offsetOf(sql, null));

        // Offsets count characters (code points), as Postgres does, not UTF-16 units.
        sql = "SELECT '\uD83D\uDE00', bogus FROM t";
        select = (SqlSelect) CoilgunParser.parseStatements(sql).get(0);
        assertEquals(13, CoilgunParser.offsetOf(sql, select.getSelectList().get(1).getParserPosition()));
        assertEquals(sql.codePointCount(0, sql.indexOf("bogus")) + 1, 13);
    }

    @Test
    void configWorksWithCalciteSqlParser() throws Exception {
        SqlNode node = SqlParser.create("insert into s values (1) returning *", CoilgunParser.config()).parseStmt();
        assertInstanceOf(SqlInsertReturning.class, node);
        assertInstanceOf(SqlInsert.class, ((SqlInsertReturning) node).insert());
    }
}
