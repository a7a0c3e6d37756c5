package io.coilgun.sql.compile;

import io.coilgun.sql.parser.SqlTransaction;

/**
 * {@code BEGIN}, {@code COMMIT} or {@code ROLLBACK}, and {@code SAVEPOINT}, {@code RELEASE} and {@code ROLLBACK TO}
 * (with {@code savepoint}, else null): accepted so drivers work, with Postgres' command tags, transaction status and
 * savepoint checks; every statement inside still applies at once (there is nothing to roll back).
 */
public record TransactionStatement(SqlTransaction.Kind kind, String savepoint) implements CompiledStatement {
}
