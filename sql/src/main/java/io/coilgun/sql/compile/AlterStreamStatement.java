package io.coilgun.sql.compile;

import io.coilgun.planner.model.StreamDef;

/**
 * {@code ALTER STREAM name ADD COLUMN ...} (the stream at its next schema version) or {@code ALTER STREAM name SET
 * (...)} (the stream with its new options, {@code options} true), and the statement's text (kept in the catalog after
 * the CREATE STREAM).
 */
public record AlterStreamStatement(StreamDef stream, String ddl, boolean options) implements CompiledStatement {
    public AlterStreamStatement(StreamDef stream, String ddl) {
        this(stream, ddl, false);
    }
}
