package io.coilgun.server.session;

import io.coilgun.cluster.kafka.KafkaUnavailableException;
import io.coilgun.pgwire.spi.PgException;
import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.IntUnaryOperator;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one place where failures become Postgres errors (SQLSTATE, message, position). */
public final class ErrorMapper {
    private static final Logger LOG = LoggerFactory.getLogger(ErrorMapper.class);

    private ErrorMapper() {
    }

    public static PgException toPg(Throwable t) {
        return toPg(t, IntUnaryOperator.identity());
    }

    /**
     * @param positions from a position in the text the statement was parsed from to one in the client's text
     *     ({@link io.coilgun.sql.parser.PgSyntax.Rewritten#originalPosition})
     */
    public static PgException toPg(Throwable t, IntUnaryOperator positions) {
        Throwable e = t;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof PgException pg) {
            return pg;
        }
        if (e instanceof CoilgunException c) {
            int position = c.position() > 0 ? positions.applyAsInt(c.position()) : 0;
            if (c.detail() != null || c.hint() != null) {
                return new PgException(c.state().code(), c.getMessage(), position) {
                    private static final long serialVersionUID = 1L;

                    @Override
                    public String detail() {
                        return c.detail();
                    }

                    @Override
                    public String hint() {
                        return c.hint();
                    }
                };
            }
            return new PgException(c.state().code(), c.getMessage(), position);
        }
        if (e instanceof TimeoutException) {
            return new PgException(SqlState.QUERY_CANCELED.code(),
                    "timed out waiting for the event to be processed; it may still be applied");
        }
        if (e instanceof KafkaUnavailableException || e instanceof KafkaException) {
            return new PgException(SqlState.CONNECTION_FAILURE.code(), "Kafka: " + e.getMessage());
        }
        LOG.error("internal error", e);
        return new PgException(SqlState.INTERNAL_ERROR.code(), "internal error: " + e);
    }
}
