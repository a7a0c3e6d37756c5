package io.coilgun.pgwire.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a handler under test sent, as the client reads it: the encoder's bytes split into backend messages. */
final class ServerOutput {
    /** One backend message: its type byte and body. */
    record Message(char type, byte[] body) {
        /** The Int32 at {@code offset} of the body (an Authentication request's code, a key's process id). */
        int int32(int offset) {
            return ByteBuffer.wrap(body).getInt(offset);
        }

        /** The body after its first {@code offset} bytes, as UTF-8. */
        String text(int offset) {
            return new String(body, offset, body.length - offset, StandardCharsets.UTF_8);
        }

        /** An ErrorResponse's fields by code ('S' severity, 'C' SQLSTATE, 'M' message, …). */
        Map<Character, String> fields() {
            Map<Character, String> fields = new LinkedHashMap<>();
            int i = 0;
            while (body[i] != 0) {
                char code = (char) body[i++];
                int end = i;
                while (body[end] != 0) {
                    end++;
                }
                fields.put(code, new String(body, i, end - i, StandardCharsets.UTF_8));
                i = end + 1;
            }
            return fields;
        }
    }

    private ServerOutput() {
    }

    /** Every buffer written so far, concatenated. */
    static byte[] bytes(EmbeddedChannel channel) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        Object written;
        while ((written = channel.readOutbound()) != null) {
            ByteBuf buf = (ByteBuf) written;
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            buf.release();
            all.writeBytes(bytes);
        }
        return all.toByteArray();
    }

    /** The messages written so far. */
    static List<Message> messages(EmbeddedChannel channel) {
        ByteBuffer out = ByteBuffer.wrap(bytes(channel));
        List<Message> messages = new ArrayList<>();
        while (out.hasRemaining()) {
            char type = (char) out.get();
            byte[] body = new byte[out.getInt() - 4];
            out.get(body);
            messages.add(new Message(type, body));
        }
        return messages;
    }

    /** The type bytes of {@code messages}, e.g. "TDCZ". */
    static String types(List<Message> messages) {
        StringBuilder types = new StringBuilder();
        messages.forEach(m -> types.append(m.type()));
        return types.toString();
    }
}
