package io.coilgun.pgwire.protocol;

import io.coilgun.pgwire.spi.SqlStates;
import io.coilgun.pgwire.codec.BackendMessage.ErrorResponse;
import io.coilgun.pgwire.spi.PgException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Turns exceptions into ErrorResponse messages; SQLSTATEs from https://www.postgresql.org/docs/current/errcodes-appendix.html. */
final class ErrorResponses {

    private ErrorResponses() {
    }

    static ErrorResponse error(String sqlState, String message) {
        return new ErrorResponse(ErrorResponse.ERROR, sqlState, message, 0);
    }

    static ErrorResponse fatal(String sqlState, String message) {
        return new ErrorResponse(ErrorResponse.FATAL, sqlState, message, 0);
    }

    /** A PgException as sent: FATAL when it says so, else ERROR, with its position. */
    static ErrorResponse of(PgException e) {
        return new ErrorResponse(e.fatal() ? ErrorResponse.FATAL : ErrorResponse.ERROR,
                e.sqlState() == null ? SqlStates.INTERNAL_ERROR : e.sqlState(), e.getMessage(), e.position(), e.hint(),
                e.context(), e.detail(), e.routine());
    }

    /** Any other exception: an internal error (XX000) carrying the exception's message. */
    static ErrorResponse internal(Throwable t, String severity) {
        String message = t.getMessage() != null ? t.getMessage() : t.getClass().getName();
        return new ErrorResponse(severity, SqlStates.INTERNAL_ERROR, message, 0);
    }

    /** The cause a CompletionStage failed with, without the CompletionException/ExecutionException wrapper. */
    static Throwable unwrap(Throwable t) {
        Throwable current = t;
        while ((current instanceof CompletionException || current instanceof ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
