package io.coilgun.pgwire.spi;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * The outcome of one statement.
 *
 * @param columns the row shape, or empty when the statement returns no rows (no RowDescription sent)
 * @param rows Java values per row, in {@code columns} order: {@code null}, {@link Boolean}, {@link Short},
 *     {@link Integer}, {@link Long}, {@link Float}, {@link Double}, {@link BigDecimal},
 *     {@link String}, {@link LocalDateTime}, {@link OffsetDateTime},
 *     {@link LocalDate}, {@code byte[]} or, for an {@code interval}, a {@link java.time.temporal.TemporalAmount}
 *     of months ({@link java.time.temporal.ChronoUnit#MONTHS}), days ({@code DAYS}) and time (its time-based
 *     units), each kept apart as Postgres keeps them; pgwire encodes them by the column's {@link PgType}. A
 *     {@code timestamp} may also be a {@link Long}: microseconds since 1970-01-01 00:00 (no allocation per value)
 * @param commandTag the CommandComplete tag, e.g. {@code "INSERT 0 1"}, {@code "SELECT 3"}, {@code "CREATE STREAM"}
 * @param notices messages sent as NoticeResponses (severity NOTICE) before the rows
 * @param copyIn for {@code COPY ... FROM STDIN}: where the data goes (then columns and rows are empty and the
 *     tag comes from {@link CopyIn#finish()}); null otherwise
 * @param stream for a streamed result: the rows, sent as they come ({@code rows} is then empty and
 *     {@code commandTag} is the verb pgwire completes with the row count, e.g. {@code SUBSCRIBE} → "SUBSCRIBE 3");
 *     null for a materialized result
 * @param copyOut for {@code COPY (query) TO STDOUT}: the format the stream's rows are sent in as CopyData
 *     (CommandComplete "COPY n"); null otherwise
 */
public record QueryResult(List<Column> columns, List<Object[]> rows, String commandTag, List<String> notices,
        CopyIn copyIn, RowStream stream, CopyFormat copyOut) {
    public QueryResult(List<Column> columns, List<Object[]> rows, String commandTag, List<String> notices,
            CopyIn copyIn) {
        this(columns, rows, commandTag, notices, copyIn, null, null);
    }

    public QueryResult(List<Column> columns, List<Object[]> rows, String commandTag, List<String> notices) {
        this(columns, rows, commandTag, notices, null);
    }

    public QueryResult(List<Column> columns, List<Object[]> rows, String commandTag) {
        this(columns, rows, commandTag, List.of(), null);
    }

    public static QueryResult command(String tag) {
        return new QueryResult(List.of(), List.of(), tag);
    }

    public static QueryResult copyIn(CopyIn copyIn) {
        return new QueryResult(List.of(), List.of(), null, List.of(), copyIn);
    }

    /**
     * Rows sent as the stream yields them (RowDescription, DataRow*, CommandComplete "{@code verb} n").
     *
     * @param verb the command tag before the row count, e.g. {@code SUBSCRIBE} or {@code SELECT}
     */
    public static QueryResult stream(List<Column> columns, RowStream stream, String verb) {
        return new QueryResult(columns, List.of(), verb, List.of(), null, stream, null);
    }

    /** {@code COPY (query) TO STDOUT}: the rows sent as COPY data in {@code format}, then "COPY n". */
    public static QueryResult copyOut(List<Column> columns, RowStream stream, CopyFormat format) {
        return new QueryResult(columns, List.of(), "COPY", List.of(), null, stream, format);
    }
}
