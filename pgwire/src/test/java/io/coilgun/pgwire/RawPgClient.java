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

    /** Parse: statement name, SQL, declared parameter type OIDs. */
    static byte[] parse(String name, String sql, int... oids) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writeCString(body, name);
        writeCString(body, sql);
        writeShort(body, oids.length);
        for (int oid : oids) {
            writeInt(body, oid);
        }
        return typed('P', body.toByteArray());
    }

    /** Bind with all parameters and results in text format; a null value is NULL. */
    static byte[] bind(String portal, String statement, String... values) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writeCString(body, portal);
        writeCString(body, statement);
        writeShort(body, 0);
        writeShort(body, values.length);
        for (String v : values) {
            if (v == null) {
                writeInt(body, -1);
            } else {
                byte[] bytes = v.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                writeInt(body, bytes.length);
                body.write(bytes, 0, bytes.length);
            }
        }
        writeShort(body, 0);
        return typed('B', body.toByteArray());
    }

    /** Describe ('S' statement or 'P' portal). */
    static byte[] describe(char kind, String name) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(kind);
        writeCString(body, name);
        return typed('D', body.toByteArray());
    }

    static byte[] execute(String portal, int maxRows) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        writeCString(body, portal);
        writeInt(body, maxRows);
        return typed('E', body.toByteArray());
    }

    static byte[] sync() {
        return typed('S', new byte[0]);
    }

    private static void writeShort(ByteArrayOutputStream out, int value) {
        out.write(value >>> 8);
        out.write(value);
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
