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

    /**
     * Parse ('P'), Bind ('B'), Describe ('D'), Execute ('E') or Close ('C') of the extended query protocol,
     * not decoded further yet.
     */
    record ExtendedQueryMessage(char type) implements FrontendMessage {
    }

    /** CopyData ('d'), CopyDone ('c') or CopyFail ('f'); ignored outside COPY, as Postgres does. */
    record CopyMessage(char type) implements FrontendMessage {
    }

    /** Any other typed message (FunctionCall 'F', a password message, unknown types). */
    record OtherMessage(char type) implements FrontendMessage {
    }

    /** A frame the decoder could not accept; the connection ends with an 08P01 error. */
    record MalformedMessage(String reason) implements FrontendMessage {
    }
}
