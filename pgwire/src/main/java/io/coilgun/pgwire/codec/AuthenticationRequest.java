package io.coilgun.pgwire.codec;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Authentication* messages ('R') besides {@link BackendMessage.AuthenticationOk}: an Int32 code, then the
 * code's data. AuthenticationCleartextPassword (3), AuthenticationSASL (10: the mechanisms, each a string, then
 * an empty one), AuthenticationSASLContinue (11) and AuthenticationSASLFinal (12) with SASL data.
 */
public record AuthenticationRequest(int code, byte[] data) implements BackendMessage {
    public static final int CLEARTEXT_PASSWORD = 3;
    public static final int SASL = 10;
    public static final int SASL_CONTINUE = 11;
    public static final int SASL_FINAL = 12;

    public static AuthenticationRequest cleartextPassword() {
        return new AuthenticationRequest(CLEARTEXT_PASSWORD, new byte[0]);
    }

    public static AuthenticationRequest sasl(List<String> mechanisms) {
        StringBuilder list = new StringBuilder();
        mechanisms.forEach(m -> list.append(m).append('\0'));
        list.append('\0');
        return new AuthenticationRequest(SASL, list.toString().getBytes(StandardCharsets.UTF_8));
    }

    public static AuthenticationRequest saslContinue(String data) {
        return new AuthenticationRequest(SASL_CONTINUE, data.getBytes(StandardCharsets.UTF_8));
    }

    public static AuthenticationRequest saslFinal(String data) {
        return new AuthenticationRequest(SASL_FINAL, data.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public char type() {
        return 'R';
    }

    @Override
    public void writeBody(ByteBuf out) {
        out.writeInt(code);
        out.writeBytes(data);
    }
}
