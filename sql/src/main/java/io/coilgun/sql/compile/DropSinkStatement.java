package io.coilgun.sql.compile;

/** {@code DROP SINK [IF EXISTS] name}: its records stop; what it wrote stays in its topic. */
public record DropSinkStatement(String name, boolean ifExists) implements CompiledStatement {
}
