package io.coilgun.sql.compile;

import io.coilgun.sql.parser.SqlTransaction;

/**
 * {@code BEGIN}, {@code COMMIT} or {@code ROLLBACK}: accepted so drivers work, with Postgres' command tags and
 * transaction status; every statement inside still applies at once (there is nothing to roll back).
 */
public record TransactionStatement(SqlTransaction.Kind kind) implements CompiledStatement {
}
