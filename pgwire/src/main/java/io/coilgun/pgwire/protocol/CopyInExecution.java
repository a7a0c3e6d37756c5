package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.codec.BackendMessage.CopyResponse;
import io.coilgun.pgwire.copy.BinaryCopyParser;
import io.coilgun.pgwire.copy.CopyDataParser;
import io.coilgun.pgwire.copy.CopyRowParser;
import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.CopyIn;
import io.coilgun.pgwire.spi.QueryResult;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;

/**
 * One {@code COPY ... FROM STDIN}: sends CopyInResponse, parses CopyData into rows for the session's
 * {@link CopyIn}, and ends it at CopyDone (apply) or CopyFail, a bad row or a lost connection (abort). The first
 * error ends the copy at once (the client learns it from the ErrorResponse; its remaining CopyData is then
 * ignored, as Postgres does). Runs on the channel's event loop.
 */
final class CopyInExecution {
    private final ChannelHandlerContext ctx;
    private final CopyIn copyIn;
    private final BiConsumer<QueryResult, Throwable> ended;
    private final CopyDataParser parser;
    private boolean over;

    /** @param ended called once, on the event loop, with the result (COPY n) or the error */
    CopyInExecution(ChannelHandlerContext ctx, CopyIn copyIn, BiConsumer<QueryResult, Throwable> ended) {
        this.ctx = ctx;
        this.copyIn = copyIn;
        this.ended = ended;
        this.parser = binary() ? new BinaryCopyParser(copyIn.target(), copyIn.columnTypes(),
                CopyRowParser.DEFAULT_MAX_ROW_BYTES, copyIn::row)
                : new CopyRowParser(copyIn.format(), copyIn.target(), copyIn.columns(), copyIn::row);
    }

    private boolean binary() {
        return copyIn.format().format() == CopyFormat.Format.BINARY;
    }

    void start() {
        ctx.writeAndFlush(new CopyResponse(true, copyIn.columns().size(), binary()));
    }

    void data(byte[] chunk) {
        if (over) {
            return;
        }
        try {
            parser.feed(chunk);
        } catch (RuntimeException e) {
            fail(e);
        }
    }

    void done() {
        if (over) {
            return;
        }
        CompletionStage<QueryResult> result;
        try {
            parser.finish();
            over = true;
            result = copyIn.finish();
        } catch (RuntimeException e) {
            fail(e);
            return;
        }
        result.whenComplete((r, e) -> {
            try {
                ctx.executor().execute(() -> ended.accept(r, e));
            } catch (RejectedExecutionException shutDown) {
                // the server is stopping; the connection goes with it
            }
        });
    }

    void fail(Throwable error) {
        if (over) {
            return;
        }
        over = true;
        abortQuietly();
        ended.accept(null, error);
    }

    /** The connection was lost. */
    void abort() {
        if (!over) {
            over = true;
            abortQuietly();
        }
    }

    private void abortQuietly() {
        try {
            copyIn.abort();
        } catch (RuntimeException ignored) {
            // nothing was applied; the error that led here is what the client hears
        }
    }
}
