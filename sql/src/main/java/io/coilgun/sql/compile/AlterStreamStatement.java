package io.coilgun.sql.compile;

import io.coilgun.planner.model.StreamDef;

/**
 * {@code ALTER STREAM name ADD COLUMN ...} (the stream at its next schema version), {@code ALTER STREAM name SET
 * (...)} (the stream with its new options, {@code options} true) or {@code ALTER STREAM name ADD | DROP PARTITION BY
 * field} (the stream with its partitioners changed, {@code partitioner} the field), and the statement's text (kept
 * in the catalog after the CREATE STREAM).
 *
 * @param partitioner the field of ADD / DROP PARTITION BY, or null
 * @param dropsPartitioner whether it is DROP PARTITION BY
 */
public record AlterStreamStatement(StreamDef stream, String ddl, boolean options, String partitioner,
        boolean dropsPartitioner) implements CompiledStatement {
    public AlterStreamStatement(StreamDef stream, String ddl) {
        this(stream, ddl, false);
    }

    public AlterStreamStatement(StreamDef stream, String ddl, boolean options) {
        this(stream, ddl, options, null, false);
    }
}
