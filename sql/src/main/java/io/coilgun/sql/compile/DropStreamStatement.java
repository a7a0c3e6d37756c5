package io.coilgun.sql.compile;

/**
 * {@code DROP STREAM [IF EXISTS] name [CASCADE]}: the stream's tasks stop, its reservoirs, state and topics are
 * deleted; with {@code cascade} its metrics go too, without it a stream that has metrics is not dropped.
 */
public record DropStreamStatement(String name, boolean ifExists, boolean cascade) implements CompiledStatement {
}
