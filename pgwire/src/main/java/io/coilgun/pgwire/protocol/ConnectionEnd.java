package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.codec.BackendMessage;
import io.coilgun.pgwire.codec.BackendMessage.ErrorResponse;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import java.io.IOException;
import java.util.function.Consumer;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;

/** How a connection ends on a failure, the same in both its phases ({@link StartupHandler}, {@link QueryHandler}). */
final class ConnectionEnd {

    private ConnectionEnd() {
    }

    /** A failed TLS handshake, or plain bytes where TLS was expected: nothing can be said to that client. */
    static boolean tlsFailed(Throwable cause) {
        return cause instanceof NotSslRecordException
                || (cause instanceof DecoderException && cause.getCause() instanceof SSLException);
    }

    /**
     * A connection's handler caught {@code cause}: a failed TLS handshake or a lost connection closes it (nothing can be
     * said to that client), anything else is logged and ends it with a FATAL internal error ({@code fatal}).
     *
     * @param closed marks the handler's state closed (a failed TLS handshake: nothing more is read)
     */
    static void failed(ChannelHandlerContext ctx, Throwable cause, Logger log, Runnable closed,
            Consumer<BackendMessage> fatal) {
        if (tlsFailed(cause)) {
            log.debug("TLS failed on connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
            closed.run();
            ctx.close();
        } else if (cause instanceof IOException) {
            log.debug("Connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close();
        } else {
            log.warn("Unexpected error on connection {}", ctx.channel().remoteAddress(), cause);
            fatal.accept(ErrorResponses.internal(cause, ErrorResponse.FATAL));
        }
    }

    /** Sends a FATAL ErrorResponse, then closes; closes at once when the client has gone already. */
    static void sendFatal(ChannelHandlerContext ctx, BackendMessage error) {
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(error).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.close();
        }
    }
}
