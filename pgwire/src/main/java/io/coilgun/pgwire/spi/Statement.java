package io.coilgun.pgwire.spi;

/** One parsed statement, opaque to pgwire except for its text. */
public interface Statement {
    /** The statement's SQL text, as the client sent it. */
    String sql();
}
