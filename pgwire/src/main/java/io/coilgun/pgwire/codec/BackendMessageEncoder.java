package io.coilgun.pgwire.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/** Frames a {@link BackendMessage} as {@code Byte1 type, Int32 length (itself included), body}. */
@ChannelHandler.Sharable
public final class BackendMessageEncoder extends MessageToByteEncoder<BackendMessage> {

    public BackendMessageEncoder() {
        super(BackendMessage.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, BackendMessage message, ByteBuf out) {
        out.writeByte(message.type());
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        message.writeBody(out);
        out.setInt(lengthIndex, out.writerIndex() - lengthIndex);
    }
}
