package io.coilgun.sql.compile;

/** {@code SHOW name} or {@code SHOW ALL} (name {@code all}): a run-time parameter, answered by the session. */
public record ShowStatement(String name) implements CompiledStatement {
}
