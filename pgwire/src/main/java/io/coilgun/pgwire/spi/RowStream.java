package io.coilgun.pgwire.spi;

import java.util.Iterator;
import java.util.List;

/**
 * The rows of a streamed result ({@link QueryResult#stream}), possibly never-ending (SUBSCRIBE). Pull-based:
 * pgwire polls rows on the connection's event loop while the client keeps up (the channel is writable) and the
 * portal's row limit allows; when {@link #poll} has nothing, pgwire waits for the {@link #onAvailable} callback,
 * which the source runs from any thread when a row arrives, when it ends or when it failed.
 *
 * <p>pgwire calls {@link #close} exactly once when the statement ends for any reason: the source ended, an error,
 * the portal was closed, or the connection went away. The source then releases what it holds (a subscription).
 */
public interface RowStream {
    /** Registers the readiness callback, before the first {@link #poll}. It must be cheap and may run often. */
    void onAvailable(Runnable callback);

    /**
     * The next row (values as in {@link QueryResult#rows()}), or null when none is waiting now.
     *
     * @throws PgException when the stream failed: canceled (57014), the subscriber fell behind (54000), ...
     */
    Object[] poll();

    /** True once the source has ended and every row was polled: pgwire sends CommandComplete. */
    boolean ended();

    /** Releases the source. Called once, on the event loop. */
    void close();

    /** A finite stream over rows already materialized (for COPY (SHOW …) TO STDOUT and tests). */
    static RowStream of(List<Object[]> rows) {
        Iterator<Object[]> it = rows.iterator();
        return new RowStream() {
            @Override
            public void onAvailable(Runnable callback) {
                // every row is there at once
            }

            @Override
            public Object[] poll() {
                return it.hasNext() ? it.next() : null;
            }

            @Override
            public boolean ended() {
                return !it.hasNext();
            }

            @Override
            public void close() {
                // nothing held
            }
        };
    }
}
