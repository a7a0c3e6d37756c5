package io.coilgun.sql.compile;

import io.coilgun.planner.model.SinkDef;

/** {@code CREATE SINK}: a metric's (or a stream's) values of every event written to a Kafka topic. */
public record CreateSinkStatement(SinkDef sink, boolean ifNotExists) implements CompiledStatement {
}
