package io.coilgun.sql.compile;

import io.coilgun.planner.model.StreamDef;

/** {@code CREATE STREAM}: the stream's definition, its DDL text included. */
public record CreateStreamStatement(StreamDef stream, boolean ifNotExists) implements CompiledStatement {
}
