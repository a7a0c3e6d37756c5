package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.Session;
import io.coilgun.pgwire.spi.Statement;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A small session for the handler tests. Statements are split on ';'; text containing "syntax" fails to parse
 * (42601). {@code SELECT v} returns one text row {@code v} ({@code SELECT $1} the parameter's value), {@code FAIL}
 * fails with 22012, anything else completes with its first word as the tag.
 */
final class ScriptedSession implements Session {
    private static final List<Column> ONE_TEXT = List.of(new Column("v", PgType.TEXT));

    final List<String> executed = new ArrayList<>();
    int failures;
    int cancels;
    int closes;
    int startedProcessId;

    private record Parsed(String sql, List<PgType> parameterTypes) implements Statement {
    }

    @Override
    public List<Statement> parse(String sql) {
        if (sql.contains("syntax")) {
            throw new PgException("42601", "syntax error at or near \"syntax\"", 5);
        }
        return Arrays.stream(sql.split(";")).map(String::trim).filter(s -> !s.isEmpty())
                .<Statement>map(s -> new Parsed(s, List.of())).toList();
    }

    @Override
    public Statement prepare(Statement statement, int[] parameterTypeOids) {
        List<PgType> types = new ArrayList<>();
        statement.sql().chars().filter(c -> c == '$').forEach(c -> types.add(PgType.TEXT));
        return new Parsed(statement.sql(), types);
    }

    @Override
    public List<Column> describe(Statement statement) {
        return isSelect(statement) ? ONE_TEXT : List.of();
    }

    @Override
    public CompletionStage<QueryResult> execute(Statement statement, List<Object> parameters) {
        executed.add(statement.sql());
        if (statement.sql().equals("FAIL")) {
            return CompletableFuture.failedFuture(new PgException("22012", "division by zero"));
        }
        if (isSelect(statement)) {
            Object value = parameters.isEmpty() ? statement.sql().substring(7) : parameters.get(0);
            return CompletableFuture.completedFuture(new QueryResult(ONE_TEXT,
                    List.<Object[]>of(new Object[] {value}), "SELECT 1"));
        }
        return CompletableFuture.completedFuture(QueryResult.command(
                statement.sql().split(" ")[0].toUpperCase(Locale.ROOT)));
    }

    private static boolean isSelect(Statement statement) {
        return statement.sql().toUpperCase(Locale.ROOT).startsWith("SELECT ");
    }

    @Override
    public void statementFailed() {
        failures++;
    }

    @Override
    public void started(int processId, SocketAddress client) {
        startedProcessId = processId;
    }

    @Override
    public void cancel() {
        cancels++;
    }

    @Override
    public void close() {
        closes++;
    }
}
