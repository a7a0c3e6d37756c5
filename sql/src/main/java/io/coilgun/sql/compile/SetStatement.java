package io.coilgun.sql.compile;

/**
 * {@code SET name = value} or {@code RESET name} (value null), as drivers send them. Accepted and not applied:
 * no session setting changes Coilgun's behaviour yet.
 */
public record SetStatement(String name, String value) implements CompiledStatement {
}
