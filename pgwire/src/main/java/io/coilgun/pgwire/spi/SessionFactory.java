package io.coilgun.pgwire.spi;

/** Opens a session for each new connection, once startup (and authentication) has succeeded. */
public interface SessionFactory {
    /**
     * @param startup the startup packet's parameters ({@code user}, {@code database}, {@code options}, …)
     * @throws PgException to refuse the connection (sent as a FATAL ErrorResponse)
     */
    Session open(StartupInfo startup);
}
