package io.coilgun.tests.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * {@code INSERT INTO payments VALUES (...) RETURNING *} over its own pgjdbc connection, as a client would: by
 * default a server-prepared statement with parameters (pgjdbc's defaults), or with {@code simple} a statement text
 * per event in the simple query protocol (what clients without prepared statements do).
 */
final class PgSender implements Sender {

    private final Connection connection;
    private final Statement statement;
    private final PreparedStatement prepared;
    /** Whether the stream has a device_id column (last): a stream partitioned by it. */
    private final boolean devices;

    PgSender(BenchNode node, int timeoutS, boolean simple, boolean devices) throws SQLException {
        this.connection = node.connect(timeoutS, simple);
        this.devices = devices;
        this.statement = simple ? connection.createStatement() : null;
        this.prepared = simple ? null : connection.prepareStatement("INSERT INTO payments VALUES (?, ?, ?, ?, ?"
                + (devices ? ", ?" : "") + ") RETURNING *");
    }

    @Override
    public void send(Payment p) throws SQLException {
        ResultSet rs;
        if (prepared != null) {
            prepared.setLong(1, p.id());
            prepared.setObject(2, LocalDateTime.ofEpochSecond(Math.floorDiv(p.timeMicros(), 1_000_000),
                    (int) Math.floorMod(p.timeMicros(), 1_000_000) * 1000, ZoneOffset.UTC));
            prepared.setString(3, p.card());
            prepared.setString(4, p.merchant());
            prepared.setDouble(5, p.amount());
            if (devices) {
                prepared.setString(6, p.device());
            }
            rs = prepared.executeQuery();
        } else {
            rs = statement.executeQuery("INSERT INTO payments VALUES " + p.sqlRow(devices) + " RETURNING *");
        }
        try (rs) {
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
