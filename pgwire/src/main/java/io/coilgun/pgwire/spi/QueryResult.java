package io.coilgun.pgwire.spi;

import java.util.List;

/**
 * The outcome of one statement.
 *
 * @param columns the row shape, or empty when the statement returns no rows (no RowDescription sent)
 * @param rows Java values per row, in {@code columns} order: {@code null}, {@link Boolean}, {@link Short},
 *     {@link Integer}, {@link Long}, {@link Float}, {@link Double}, {@link java.math.BigDecimal},
 *     {@link String}, {@link java.time.LocalDateTime}, {@link java.time.OffsetDateTime},
 *     {@link java.time.LocalDate} or {@code byte[]}; pgwire encodes them by the column's {@link PgType}
 * @param commandTag the CommandComplete tag, e.g. {@code "INSERT 0 1"}, {@code "SELECT 3"}, {@code "CREATE STREAM"}
 * @param notices messages sent as NoticeResponses (severity NOTICE) before the rows
 * @param copyIn for {@code COPY ... FROM STDIN}: where the data goes (then columns and rows are empty and the
 *     tag comes from {@link CopyIn#finish()}); null otherwise
 */
public record QueryResult(List<Column> columns, List<Object[]> rows, String commandTag, List<String> notices,
        CopyIn copyIn) {
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
}
