package io.coilgun.sql.compile;

import io.coilgun.planner.model.StreamDef;

/**
 * {@code ALTER STREAM name ADD COLUMN ...}: the stream at its next schema version, and the statement's text (kept
 * in the catalog after the CREATE STREAM).
 */
public record AlterStreamStatement(StreamDef stream, String ddl) implements CompiledStatement {
}
