package io.coilgun.pgwire;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/** A bare-bones frontend for tests that need exact bytes: builds messages, reads typed backend messages. */
final class RawPgClient implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    /** A backend message: type byte and body. */
    record Message(char type, byte[] body) {
        /** ErrorResponse/NoticeResponse fields by code. */
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

        String text() {
            return new String(body, 0, body.length - 1, StandardCharsets.UTF_8);
        }
    }

    RawPgClient(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(5000);
        in = new DataInputStream(socket.getInputStream());
        out = new DataOutputStream(socket.getOutputStream());
    }

    static byte[] startup(String... pairs) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writeInt(body, 196608);
        for (String s : pairs) {
            writeCString(body, s);
        }
        body.write(0);
        return untyped(body.toByteArray());
    }

    static byte[] untypedCode(int code) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writeInt(body, code);
        return untyped(body.toByteArray());
    }

    static byte[] query(String sql) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writeCString(body, sql);
        return typed('Q', body.toByteArray());
    }

    static byte[] typed(char type, byte[] body) {
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        message.write(type);
        writeInt(message, body.length + 4);
        message.writeBytes(body);
        return message.toByteArray();
    }

    private static byte[] untyped(byte[] body) {
        ByteArrayOutputStream message = new ByteArrayOutputStream();
        writeInt(message, body.length + 4);
        message.writeBytes(body);
        return message.toByteArray();
    }

    void send(byte[]... messages) throws IOException {
        for (byte[] message : messages) {
            out.write(message);
        }
        out.flush();
    }

    int readByte() throws IOException {
        return in.read();
    }

    Message read() throws IOException {
        char type = (char) in.readUnsignedByte();
        byte[] body = new byte[in.readInt() - 4];
        in.readFully(body);
        return new Message(type, body);
    }

    /** Reads until ReadyForQuery (included) and returns the types seen, e.g. "TDCZ". */
    String readUntilReady(StringBuilder texts) throws IOException {
        StringBuilder types = new StringBuilder();
        Message message;
        do {
            message = read();
            types.append(message.type());
            if (texts != null && message.type() == 'C') {
                texts.append(message.text()).append(';');
            }
        } while (message.type() != 'Z');
        return types.toString();
    }

    /** True if the server closed the connection (reads EOF). */
    boolean closedByServer() throws IOException {
        try {
            while (true) {
                if (in.read() < 0) {
                    return true;
                }
            }
        } catch (EOFException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    private static void writeInt(ByteArrayOutputStream out, int value) {
        out.write(value >>> 24);
        out.write(value >>> 16);
        out.write(value >>> 8);
        out.write(value);
    }

    private static void writeCString(ByteArrayOutputStream out, String s) {
        out.writeBytes(s.getBytes(StandardCharsets.UTF_8));
        out.write(0);
    }
}
