package io.coilgun.tests.bench;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/** {@code INSERT INTO payments VALUES (...) RETURNING *} over its own pgjdbc connection, as a client would. */
final class PgSender implements Sender {
    private final Connection connection;
    private final Statement statement;

    PgSender(BenchNode node, int timeoutS) throws SQLException {
        this.connection = node.connect(timeoutS);
        this.statement = connection.createStatement();
    }

    @Override
    public void send(Payment p) throws SQLException {
        try (ResultSet rs = statement.executeQuery("INSERT INTO payments VALUES " + p.sqlRow() + " RETURNING *")) {
            if (!rs.next()) {
                throw new SQLException("no RETURNING row for event " + p.id());
            }
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            // closing anyway
        }
    }
}
