package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.pgwire.spi.Statement;
import java.util.List;

/**
 * A bound statement ready to run (extended protocol): the statement, its parameter values and the result formats
 * asked for. Once executed it holds the result and how many rows were sent, so an Execute with a row limit can
 * leave it suspended and the next Execute goes on where it stopped.
 */
final class Portal {
    /** The statement, or null for an empty query string. */
    final Statement statement;
    final List<Object> parameters;
    final short[] resultFormats;
    QueryResult result;
    int sent;
    /** A streamed result still being sent (SUBSCRIBE): its next Execute goes on pulling rows; else null. */
    StreamedRows streamed;

    Portal(Statement statement, List<Object> parameters, short[] resultFormats) {
        this.statement = statement;
        this.parameters = parameters;
        this.resultFormats = resultFormats;
    }

    boolean executed() {
        return result != null;
    }

    boolean exhausted() {
        return result != null && sent >= rows().size();
    }

    /** Releases a streamed result's source (the portal is closed or dropped). */
    void release() {
        if (streamed != null) {
            streamed.close();
            streamed = null;
        }
    }

    List<Object[]> rows() {
        return result.rows() == null ? List.of() : result.rows();
    }
}
