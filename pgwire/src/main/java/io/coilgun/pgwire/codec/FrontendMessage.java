package io.coilgun.pgwire.codec;

import java.util.Map;

/**
 * Messages from the client, as decoded by {@link FrontendMessageDecoder}. Names follow
 * https://www.postgresql.org/docs/current/protocol-message-formats.html.
 */
public interface FrontendMessage {

    /** SSLRequest (code 80877103): the client asks for TLS before the startup message. */
    enum SslRequest implements FrontendMessage { INSTANCE }

    /** GSSENCRequest (code 80877104): the client asks for GSSAPI encryption before the startup message. */
    enum GssEncRequest implements FrontendMessage { INSTANCE }

    /** CancelRequest (code 80877102), sent on a new connection instead of a startup message. */
    record CancelRequest(int processId, int secretKey) implements FrontendMessage {
    }

    /**
     * StartupMessage: protocol version and the parameter pairs ({@code user}, {@code database},
     * {@code application_name}, {@code options}, …) in the order sent.
     */
    record StartupMessage(int majorVersion, int minorVersion, Map<String, String> parameters)
            implements FrontendMessage {
    }

    /** Query ('Q'): a simple query, possibly several statements. */
    record Query(String sql) implements FrontendMessage {
    }

    /** Terminate ('X'). */
    enum Terminate implements FrontendMessage { INSTANCE }

    /** Sync ('S'): ends an extended-query cycle. */
    enum Sync implements FrontendMessage { INSTANCE }

    /** Flush ('H'). */
    enum Flush implements FrontendMessage { INSTANCE }

    /** Parse ('P'): prepares {@code sql} as statement {@code name} ("" = the unnamed statement). */
    record Parse(String name, String sql, int[] parameterTypeOids) implements FrontendMessage {
    }

    /**
     * Bind ('B'): makes portal {@code portal} from {@code statement} with parameter values (null = SQL NULL) in
     * the given formats, and the result formats wanted. Format lists follow the protocol: empty = all text, one
     * entry = for all, else one per parameter or column.
     */
    record Bind(String portal, String statement, short[] parameterFormats, byte[][] parameters,
            short[] resultFormats) implements FrontendMessage {
    }

    /** Describe ('D') of a statement ({@code kind} 'S') or a portal ('P'). */
    record Describe(char kind, String name) implements FrontendMessage {
    }

    /** Execute ('E'): runs a portal, returning at most {@code maxRows} rows (0 = all). */
    record Execute(String portal, int maxRows) implements FrontendMessage {
    }

    /** Close ('C') of a statement ({@code kind} 'S') or a portal ('P'). */
    record Close(char kind, String name) implements FrontendMessage {
    }

    /** CopyData ('d'): a chunk of COPY FROM STDIN data. */
    record CopyData(byte[] data) implements FrontendMessage {
    }

    /** CopyDone ('c'): the end of COPY FROM STDIN data. */
    enum CopyDone implements FrontendMessage { INSTANCE }

    /** CopyFail ('f'): the client aborts COPY FROM STDIN. */
    record CopyFail(String message) implements FrontendMessage {
    }

    /** PasswordMessage / SASLInitialResponse / SASLResponse ('p'): the body, read by the authenticator. */
    record PasswordMessage(byte[] body) implements FrontendMessage {
    }

    /** Any other typed message (FunctionCall 'F', unknown types). */
    record OtherMessage(char type) implements FrontendMessage {
    }

    /** A frame the decoder could not accept; the connection ends with an 08P01 error. */
    record MalformedMessage(String reason) implements FrontendMessage {
    }
}
