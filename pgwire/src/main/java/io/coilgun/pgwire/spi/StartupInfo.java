package io.coilgun.pgwire.spi;

import java.util.Map;

/** What the client sent in its StartupMessage. */
public record StartupInfo(String user, String database, Map<String, String> parameters) {
    public StartupInfo {
        parameters = Map.copyOf(parameters);
    }
}
