package io.coilgun.pgwire.codec;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits the byte stream into {@link FrontendMessage}s.
 *
 * <p>Until the StartupMessage, frames are untyped ({@code Int32 length, Int32 code, …}): SSLRequest,
 * GSSENCRequest, CancelRequest or StartupMessage. After it, every frame is {@code Byte1 type, Int32 length,
 * body}. A frame with a bad length, one larger than the limit or a body that does not parse becomes a
 * {@link FrontendMessage.MalformedMessage}; after that, all further input is discarded (the handler
 * closes the connection). Oversized frames are refused from their header, before buffering the body.
 */
public final class FrontendMessageDecoder extends ByteToMessageDecoder {
    static final int SSL_REQUEST_CODE = 80877103;
    static final int GSSENC_REQUEST_CODE = 80877104;
    static final int CANCEL_REQUEST_CODE = 80877102;
    /** Postgres refuses longer startup packets (MAX_STARTUP_PACKET_LENGTH). */
    static final int MAX_STARTUP_PACKET_LENGTH = 10_000;

    private final int maxMessageSize;
    private boolean startupDone;
    private boolean failed;

    /** @param maxMessageSize the largest accepted message, length field included */
    public FrontendMessageDecoder(int maxMessageSize) {
        if (maxMessageSize < 64) {
            throw new IllegalArgumentException("maxMessageSize must be at least 64 bytes: " + maxMessageSize);
        }
        this.maxMessageSize = maxMessageSize;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (failed) {
            in.skipBytes(in.readableBytes());
            return;
        }
        FrontendMessage message = startupDone ? decodeTyped(in) : decodeUntyped(in);
        if (message == null) {
            return;
        }
        if (message instanceof FrontendMessage.MalformedMessage) {
            failed = true;
            in.skipBytes(in.readableBytes());
        } else if (message instanceof FrontendMessage.StartupMessage) {
            startupDone = true;
        } else if ((message == FrontendMessage.SslRequest.INSTANCE
                || message == FrontendMessage.GssEncRequest.INSTANCE) && in.isReadable()) {
            // Data sent before our answer to an encryption request could have been injected by a third party.
            message = malformed("received unencrypted data after SSL request");
            failed = true;
            in.skipBytes(in.readableBytes());
        }
        out.add(message);
    }

    private FrontendMessage decodeUntyped(ByteBuf in) {
        if (in.readableBytes() < 4) {
            return null;
        }
        int length = in.getInt(in.readerIndex());
        if (length < 8 || length > MAX_STARTUP_PACKET_LENGTH) {
            return malformed("invalid length of startup packet");
        }
        if (in.readableBytes() < length) {
            return null;
        }
        in.skipBytes(4);
        ByteBuf body = in.readSlice(length - 4);
        int code = body.readInt();
        switch (code) {
            case SSL_REQUEST_CODE:
                return length == 8 ? FrontendMessage.SslRequest.INSTANCE : malformed("invalid length of SSLRequest");
            case GSSENC_REQUEST_CODE:
                return length == 8 ? FrontendMessage.GssEncRequest.INSTANCE
                        : malformed("invalid length of GSSENCRequest");
            case CANCEL_REQUEST_CODE:
                return length == 16 ? new FrontendMessage.CancelRequest(body.readInt(), body.readInt())
                        : malformed("invalid length of CancelRequest");
            default:
                return startupMessage(code >>> 16, code & 0xFFFF, body);
        }
    }

    private static FrontendMessage startupMessage(int major, int minor, ByteBuf body) {
        Map<String, String> parameters = new LinkedHashMap<>();
        while (true) {
            String name = readCString(body);
            if (name == null) {
                return malformed("invalid startup packet layout: expected terminator as last byte");
            }
            if (name.isEmpty()) {
                break;
            }
            String value = readCString(body);
            if (value == null) {
                return malformed("invalid startup packet layout: missing value for parameter \"" + name + "\"");
            }
            parameters.put(name, value);
        }
        if (body.isReadable()) {
            return malformed("invalid startup packet layout: expected terminator as last byte");
        }
        return new FrontendMessage.StartupMessage(major, minor, parameters);
    }

    private FrontendMessage decodeTyped(ByteBuf in) {
        if (in.readableBytes() < 5) {
            return null;
        }
        int start = in.readerIndex();
        char type = (char) (in.getByte(start) & 0xFF);
        int length = in.getInt(start + 1);
        if (length < 4) {
            return malformed("invalid message length " + length + " for message type '" + printable(type) + "'");
        }
        if (length > maxMessageSize) {
            return malformed("message of type '" + printable(type) + "' is " + length
                    + " bytes long, more than the limit of " + maxMessageSize + " bytes");
        }
        if (in.readableBytes() < 1 + length) {
            return null;
        }
        in.skipBytes(5);
        ByteBuf body = in.readSlice(length - 4);
        switch (type) {
            case 'Q':
                String sql = readCString(body);
                if (sql == null || body.isReadable()) {
                    return malformed("invalid string in Query message");
                }
                return new FrontendMessage.Query(sql);
            case 'X':
                return FrontendMessage.Terminate.INSTANCE;
            case 'S':
                return FrontendMessage.Sync.INSTANCE;
            case 'H':
                return FrontendMessage.Flush.INSTANCE;
            case 'P':
            case 'B':
            case 'D':
            case 'E':
            case 'C':
                return extendedQueryMessage(type, body);
            case 'd':
                byte[] data = new byte[body.readableBytes()];
                body.readBytes(data);
                return new FrontendMessage.CopyData(data);
            case 'c':
                return FrontendMessage.CopyDone.INSTANCE;
            case 'f':
                String reason = readCString(body);
                return reason == null ? malformed("invalid string in CopyFail message")
                        : new FrontendMessage.CopyFail(reason);
            case 'p':
                byte[] password = new byte[body.readableBytes()];
                body.readBytes(password);
                return new FrontendMessage.PasswordMessage(password);
            default:
                return new FrontendMessage.OtherMessage(type);
        }
    }

    /**
     * Parse, Bind, Describe, Execute or Close. Every count and length is checked against what is left of the
     * body before anything is allocated, so a lying count cannot make the server allocate more than the frame.
     */
    private static FrontendMessage extendedQueryMessage(char type, ByteBuf body) {
        try {
            FrontendMessage message = switch (type) {
                case 'P' -> parse(body);
                case 'B' -> bind(body);
                case 'D' -> new FrontendMessage.Describe(kind(body), cstring(body));
                case 'E' -> new FrontendMessage.Execute(cstring(body), int32(body));
                default -> new FrontendMessage.Close(kind(body), cstring(body));
            };
            if (body.isReadable()) {
                throw new BadBody("invalid message format");
            }
            return message;
        } catch (BadBody e) {
            return malformed(e.getMessage() + " in message of type '" + type + "'");
        }
    }

    private static FrontendMessage parse(ByteBuf body) {
        String name = cstring(body);
        String sql = cstring(body);
        int count = count(body, 4);
        int[] oids = new int[count];
        for (int i = 0; i < count; i++) {
            oids[i] = body.readInt();
        }
        return new FrontendMessage.Parse(name, sql, oids);
    }

    private static FrontendMessage bind(ByteBuf body) {
        String portal = cstring(body);
        String statement = cstring(body);
        short[] parameterFormats = formats(body);
        int count = count(body, 4);
        byte[][] parameters = new byte[count][];
        for (int i = 0; i < count; i++) {
            int length = int32(body);
            if (length == -1) {
                continue; // NULL
            }
            if (length < 0 || length > body.readableBytes()) {
                throw new BadBody("invalid length " + length + " of bind parameter " + (i + 1));
            }
            parameters[i] = new byte[length];
            body.readBytes(parameters[i]);
        }
        return new FrontendMessage.Bind(portal, statement, parameterFormats, parameters, formats(body));
    }

    private static short[] formats(ByteBuf body) {
        int count = count(body, 2);
        short[] formats = new short[count];
        for (int i = 0; i < count; i++) {
            formats[i] = body.readShort();
        }
        return formats;
    }

    /** An Int16 count of items of at least {@code itemSize} bytes each, checked against the bytes left. */
    private static int count(ByteBuf body, int itemSize) {
        if (body.readableBytes() < 2) {
            throw new BadBody("invalid message format");
        }
        int count = body.readUnsignedShort();
        if ((long) count * itemSize > body.readableBytes()) {
            throw new BadBody("count " + count + " exceeds the message length");
        }
        return count;
    }

    private static int int32(ByteBuf body) {
        if (body.readableBytes() < 4) {
            throw new BadBody("invalid message format");
        }
        return body.readInt();
    }

    private static char kind(ByteBuf body) {
        if (!body.isReadable()) {
            throw new BadBody("invalid message format");
        }
        char kind = (char) body.readByte();
        if (kind != 'S' && kind != 'P') {
            throw new BadBody("invalid DESCRIBE/CLOSE message subtype " + (int) kind);
        }
        return kind;
    }

    private static String cstring(ByteBuf body) {
        String s = readCString(body);
        if (s == null) {
            throw new BadBody("invalid string");
        }
        return s;
    }

    /** A body that does not match its message type's layout. */
    private static final class BadBody extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BadBody(String message) {
            super(message, null, false, false);
        }
    }

    /** A NUL-terminated UTF-8 string, or {@code null} when the terminator is missing. */
    private static String readCString(ByteBuf buf) {
        int end = buf.indexOf(buf.readerIndex(), buf.writerIndex(), (byte) 0);
        if (end < 0) {
            return null;
        }
        String s = buf.toString(buf.readerIndex(), end - buf.readerIndex(), StandardCharsets.UTF_8);
        buf.readerIndex(end + 1);
        return s;
    }

    private static String printable(char type) {
        return type >= 0x20 && type < 0x7F ? String.valueOf(type) : "\\x" + Integer.toHexString(type);
    }

    private static FrontendMessage.MalformedMessage malformed(String reason) {
        return new FrontendMessage.MalformedMessage(reason);
    }
}
