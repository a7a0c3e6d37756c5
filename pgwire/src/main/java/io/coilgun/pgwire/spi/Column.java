package io.coilgun.pgwire.spi;

/** One column of a result: its name and Postgres type. */
public record Column(String name, PgType type) {
}
