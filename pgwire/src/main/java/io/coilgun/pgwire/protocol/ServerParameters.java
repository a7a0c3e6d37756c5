package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.spi.StartupInfo;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The ParameterStatus values sent after authentication. They describe how pgwire encodes values (UTF-8,
 * ISO dates, UTC, integer timestamps), so clients such as pgjdbc (which insists on UTF8, ISO DateStyle
 * and integer_datetimes) parse them correctly.
 */
final class ServerParameters {
    /**
     * The Postgres version claimed. psql warns in interactive mode when the server's major version is newer
     * than its own, so this stays at 15 (the psql shipped with Debian 12); pgjdbc 42.7 needs at least 9.x.
     */
    static final String SERVER_VERSION = "15.0";

    private ServerParameters() {
    }

    /** Defaults, then the session's own values (which win on a clash). */
    static Map<String, String> forSession(StartupInfo startup, Map<String, String> sessionParameters) {
        Map<String, String> parameters = new LinkedHashMap<>();
        parameters.put("server_version", SERVER_VERSION);
        parameters.put("server_encoding", "UTF8");
        parameters.put("client_encoding", "UTF8");
        parameters.put("DateStyle", "ISO, MDY");
        parameters.put("TimeZone", "UTC");
        parameters.put("integer_datetimes", "on");
        parameters.put("standard_conforming_strings", "on");
        parameters.put("IntervalStyle", "postgres");
        parameters.put("is_superuser", "on");
        parameters.put("session_authorization", startup.user());
        parameters.put("application_name", startup.parameters().getOrDefault("application_name", ""));
        parameters.putAll(sessionParameters);
        return parameters;
    }
}
