package io.coilgun.server.session;

import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.CopyIn;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.sql.compile.CopyStatement;
import io.coilgun.sql.compile.InsertStatement;
import io.coilgun.sql.compile.StatementCompiler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;

/**
 * {@code COPY stream FROM STDIN}: every row is converted and checked as it arrives (the first bad one fails the
 * COPY, with its line), and only at CopyDone are the rows published: up to {@link #IN_MEMORY_ROWS} of them as one
 * multi-row INSERT; the rows of a bigger COPY past those go to a spool file as they come and are published in
 * batches ({@link CopyBatches}).
 */
final class StreamCopyIn implements CopyIn {
    /** The rows a COPY keeps in memory; past them it spools. */
    static final int IN_MEMORY_ROWS = Integer.getInteger("coilgun.copyInMemoryRows", 10_000);

    private final CopyStatement copy;
    private final CopyFormat format;
    private final StatementCompiler compiler;
    private final Inserter inserter;
    /** Where a big COPY's batches are read and converted (never a network thread). */
    private final Executor executor;
    private List<Object[]> rows = new ArrayList<>();
    /** The rows past the first {@link #IN_MEMORY_ROWS}, or null while there are none. */
    private CopySpool spool;
    /** The line of the data each row came from, for errors about a row found at the end (a late event). */
    private long[] lines = new long[64];

    /** When statement_timeout ends the COPY (System.nanoTime()), or Long.MAX_VALUE for never. */
    private final long deadline;

    /** @param timeoutMs statement_timeout from now, the start of the COPY (0 for none) */
    StreamCopyIn(CopyStatement copy, StatementCompiler compiler, Inserter inserter, Executor executor,
            long timeoutMs) {
        this.executor = executor;
        this.deadline = timeoutMs <= 0 ? Long.MAX_VALUE : System.nanoTime() + timeoutMs * 1_000_000L;
        this.copy = copy;
        this.compiler = compiler;
        this.inserter = inserter;
        this.format = format(copy.options());
    }

    /** The options as pgwire's COPY reader takes them (it checks their combinations as Postgres does). */
    static CopyFormat format(Map<String, String> options) {
        CopyFormat.Format kind = "csv".equals(options.get("format")) ? CopyFormat.Format.CSV
                : "binary".equals(options.get("format")) ? CopyFormat.Format.BINARY : CopyFormat.Format.TEXT;
        String header = options.get("header");
        CopyFormat.Header h = null;
        if (header != null) {
            h = switch (header.toLowerCase(Locale.ROOT)) {
                case "true", "on", "1" -> CopyFormat.Header.TRUE;
                case "false", "off", "0" -> CopyFormat.Header.FALSE;
                case "match" -> CopyFormat.Header.MATCH;
                default -> throw new PgException("22023", "header requires a Boolean value or \"match\"");
            };
        }
        return CopyFormat.of(kind, options.get("delimiter"), options.get("null"), h, options.get("quote"),
                options.get("escape"));
    }

    @Override
    public List<String> columns() {
        return copy.columnNames();
    }

    @Override
    public String target() {
        return copy.stream().name();
    }

    @Override
    public CopyFormat format() {
        return format;
    }

    @Override
    public List<PgType> columnTypes() {
        List<PgType> types = new ArrayList<>(copy.targets().length);
        for (int target : copy.targets()) {
            types.add(Inserter.pgType(copy.stream().columns().get(target).type()));
        }
        return types;
    }

    @Override
    public void row(long line, String[] fields) {
        if (System.nanoTime() - deadline > 0) {
            abort();
            throw StatementTimeout.expired(); // nothing of the COPY is applied
        }
        try {
            Object[] row = compiler.copyRow(copy, fields);
            if (rows.size() >= IN_MEMORY_ROWS) {
                if (spool == null) {
                    spool = new CopySpool(inserter.spoolDir());
                }
                spool.add(line, fields); // checked; converted again when its batch is published
                return;
            }
            if (rows.size() == lines.length) {
                lines = Arrays.copyOf(lines, lines.length * 2);
            }
            lines[rows.size()] = line;
            rows.add(row);
        } catch (CoilgunException e) {
            throw new PgException(e.state().code(), e.getMessage()) {
                private static final long serialVersionUID = 1L;

                @Override
                public String context() {
                    return "COPY " + copy.stream().name() + ", line " + line;
                }
            };
        }
    }

    @Override
    public CompletionStage<QueryResult> finish() {
        List<Object[]> all = rows;
        rows = List.of();
        if (all.isEmpty()) {
            return CompletableFuture.completedFuture(QueryResult.command("COPY 0"));
        }
        long left = deadline == Long.MAX_VALUE ? 0 : (deadline - System.nanoTime()) / 1_000_000L;
        if (deadline != Long.MAX_VALUE && left <= 0) {
            abort();
            return CompletableFuture.failedFuture(StatementTimeout.expired()); // nothing published
        }
        if (spool != null) {
            CopySpool big = spool;
            spool = null;
            CompletableFuture<QueryResult> done = new CopyBatches(copy, compiler, inserter, all, lines, big, executor)
                    .run();
            StatementTimeout.arm(done, left, () -> { });
            return done;
        }
        long[] at = lines;
        String name = copy.stream().name();
        CompletableFuture<QueryResult> done = inserter.insert(new InsertStatement(copy.stream(), all, false),
                i -> "row " + (i + 1) + " of the COPY (line " + at[i] + ")", i -> "COPY " + name + ", line " + at[i])
                .thenApply(r ->
                new QueryResult(List.of(), List.of(), "COPY " + r.commandTag().substring("INSERT 0 ".length()),
                        r.notices()))
                // a failure the insert did not name (no reply in time, Kafka gone) gets its SQLSTATE here
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(ErrorMapper.toPg(e)));
        StatementTimeout.arm(done, left, () -> { });
        return done;
    }

    @Override
    public void abort() {
        rows = List.of();
        if (spool != null) {
            spool.close();
            spool = null;
        }
    }
}
