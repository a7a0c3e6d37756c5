package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.pgwire.codec.BackendMessage.CommandComplete;
import io.coilgun.pgwire.codec.BackendMessage.CopyData;
import io.coilgun.pgwire.codec.BackendMessage.CopyResponse;
import io.coilgun.pgwire.codec.BackendMessage.Empty;
import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.copy.CopyRowWriter;
import io.coilgun.pgwire.spi.Column;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.RowStream;
import io.coilgun.pgwire.types.TextBuffer;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Sends a streamed result ({@link QueryResult#stream()}) as its rows come: DataRows (simple query, or an Execute
 * with a row limit that leaves the portal suspended and goes on at the next Execute; an Execute waits only for its
 * first row and suspends early when no more rows wait), or COPY data for
 * {@code COPY (query) TO STDOUT}. Rows are pulled only while the channel is writable and the row limit allows, so
 * a slow reader holds back the source (whose own buffer is bounded) instead of growing the server's memory.
 *
 * <p>Runs on the channel's event loop; the source's readiness callback may come from any thread and only
 * schedules {@link #pump} there (at most one pending hop at a time).
 */
final class StreamedRows {
    /** How one run ({@link #run}) ended, told on the event loop. */
    interface Listener {
        /**
         * @param suspended the row limit was reached (PortalSuspended sent); the stream stays open
         * @param error the stream failed (nothing was written for it; the stream is closed), or null
         */
        void ended(boolean suspended, Throwable error);
    }

    private final ChannelHandlerContext ctx;
    private final RowStream stream;
    private final List<Column> columns;
    private final short[] formats;
    private final String verb;
    private final CopyRowWriter copy;
    private final PgType[] types;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable pumpTask = () -> {
        scheduled.set(false);
        pump();
    };
    private long sent;
    private boolean closed;
    /**
     * COPY rows framed as CopyData messages, not yet written (see {@link #write}): a plain array, written down the
     * pipeline whole (Netty's buffer writes per row were a fifth of the pgwire thread in a COPY (REPLAY …)).
     */
    private TextBuffer batch;
    private static final int BATCH_BYTES = 32 * 1024;
    private Listener listener;
    private int limit;
    private int sentThisRun;

    /** @param formats the result formats asked for (DataRows only) */
    StreamedRows(ChannelHandlerContext ctx, QueryResult result, short[] formats) {
        this.ctx = ctx;
        this.stream = result.stream();
        this.columns = result.columns() == null ? List.of() : result.columns();
        this.formats = formats;
        this.verb = result.commandTag() == null ? "SELECT" : result.commandTag();
        CopyFormat copyFormat = result.copyOut();
        this.copy = copyFormat == null ? null : new CopyRowWriter(copyFormat);
        this.types = columns.stream().map(Column::type).toArray(PgType[]::new);
        stream.onAvailable(this::available);
        if (copy != null) {
            ctx.write(new CopyResponse(false, columns.size()));
            if (copyFormat.header() != CopyFormat.Header.FALSE) {
                ctx.write(new CopyData(copy.header(columns.stream().map(Column::name).toArray(String[]::new))));
            }
        }
    }

    boolean copyOut() {
        return copy != null;
    }

    /**
     * Sends rows until the stream ends, fails, or {@code maxRows} (0: no limit; ignored for COPY) were sent in
     * this run; the listener hears how it ended. Always starts later on the event loop, never inside this call.
     */
    void run(int maxRows, Listener listener) {
        this.limit = copy != null ? 0 : maxRows;
        this.sentThisRun = 0;
        this.listener = listener;
        ctx.flush(); // what came before (RowDescription, CopyOutResponse): the client may wait long for rows
        schedule();
    }

    /** The source has rows (or ended, or failed): any thread. */
    private void available() {
        if (scheduled.compareAndSet(false, true)) {
            schedule();
        }
    }

    private void schedule() {
        scheduled.set(true);
        try {
            ctx.executor().execute(pumpTask);
        } catch (RejectedExecutionException shutDown) {
            scheduled.set(false); // the server is stopping; the connection goes with it
        }
    }

    /** Writes what the source has, as far as the client keeps up. On the event loop. */
    void pump() {
        if (listener == null || closed) {
            return; // between runs (portal suspended): rows wait in the source's bounded buffer
        }
        if (!ctx.channel().isActive()) {
            abort();
            return;
        }
        int written = 0;
        try {
            while (true) {
                if (limit > 0 && sentThisRun >= limit) {
                    ctx.write(Empty.PORTAL_SUSPENDED);
                    flush();
                    end(true, null);
                    return;
                }
                if (!ctx.channel().isWritable()) {
                    flush(); // channelWritabilityChanged calls pump again
                    return;
                }
                Object[] row = stream.poll();
                if (row == null) {
                    if (stream.ended()) {
                        complete();
                        return;
                    }
                    if (limit > 0 && sentThisRun > 0) {
                        // A row limit with rows sent and none waiting: suspend now rather than hold the rows back
                        // until the limit fills (a fetch size of 100 over SUBSCRIBE gets each event promptly).
                        ctx.write(Empty.PORTAL_SUSPENDED);
                        flush();
                        end(true, null);
                        return;
                    }
                    if (written > 0) {
                        flush();
                    }
                    return; // the readiness callback calls pump again
                }
                write(row);
                sent++;
                sentThisRun++;
                if (++written % SimpleQueryExecution.FLUSH_EVERY_ROWS == 0) {
                    flush();
                }
            }
        } catch (RuntimeException e) {
            if (written > 0) {
                flush();
            }
            close();
            end(false, e);
        }
    }

    private void write(Object[] row) {
        if (copy == null) {
            ctx.write(WireValues.dataRow(columns, row, formats));
            return;
        }
        if (row == null || row.length != types.length) {
            throw new IllegalStateException("row has " + (row == null ? 0 : row.length) + " values for "
                    + types.length + " columns");
        }
        // one CopyData message per row, as Postgres sends them; many of them in one array, one write down the
        // pipeline (a write per row was a fifth of the thread's time in a large COPY (REPLAY …)); values go into it
        // as text with no String in between where they can
        if (batch == null) {
            batch = new TextBuffer(BATCH_BYTES + 256);
        }
        copy.appendRow(types, row, batch);
        if (batch.length() >= BATCH_BYTES) {
            writeBatch();
        }
    }

    /** Hands the COPY rows gathered so far to the pipeline. */
    private void writeBatch() {
        if (batch != null) {
            ctx.write(Unpooled.wrappedBuffer(batch.array(), 0, batch.length()));
            batch = null; // the pipeline owns it now
        }
    }

    private void flush() {
        writeBatch();
        ctx.flush();
    }

    private void complete() {
        close();
        writeBatch();
        if (copy != null) {
            ctx.write(Empty.COPY_DONE);
            ctx.write(new CommandComplete("COPY " + sent));
        } else {
            ctx.write(new CommandComplete(verb + " " + sent));
        }
        flush();
        end(false, null);
    }

    private void end(boolean suspended, Throwable error) {
        Listener told = listener;
        listener = null;
        told.ended(suspended, error);
    }

    /** The connection is gone: release the source and end the run (if one is going) with an error. */
    void abort() {
        close();
        if (listener != null) {
            end(false, new PgException(SqlStates.CONNECTION_FAILURE, "connection closed while sending a streamed result"));
        }
    }

    /** Releases the source (idempotent): the portal was closed or the statement ended. */
    void close() {
        if (batch != null) {
            if (ctx.channel().isActive()) {
                writeBatch(); // rows already taken from the stream go out, as each row did before batching
            } else {
                batch = null; // the connection is gone: nothing will write it
            }
        }
        if (!closed) {
            closed = true;
            try {
                stream.close();
            } catch (RuntimeException ignored) {
                // releasing must not fail the connection
            }
        }
    }
}
