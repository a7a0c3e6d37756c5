package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.codec.BackendMessage;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.ssl.NotSslRecordException;
import javax.net.ssl.SSLException;

/** How a connection ends on a failure, the same in both its phases ({@link StartupHandler}, {@link QueryHandler}). */
final class ConnectionEnd {

    private ConnectionEnd() {
    }

    /** A failed TLS handshake, or plain bytes where TLS was expected: nothing can be said to that client. */
    static boolean tlsFailed(Throwable cause) {
        return cause instanceof NotSslRecordException
                || (cause instanceof DecoderException && cause.getCause() instanceof SSLException);
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
