package io.coilgun.pgwire.spi;

import java.util.List;

/** One parsed statement, opaque to pgwire except for its text and, once prepared, its parameter types. */
public interface Statement {
    /** The statement's SQL text, as the client sent it. */
    String sql();

    /**
     * The type of each parameter {@code $1..$n}, as {@link Session#prepare} settled them; empty for a statement
     * without parameters.
     */
    default List<PgType> parameterTypes() {
        return List.of();
    }
}
