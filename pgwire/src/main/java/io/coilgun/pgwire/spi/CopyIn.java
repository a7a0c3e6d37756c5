package io.coilgun.pgwire.spi;

import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The receiving end of {@code COPY ... FROM STDIN}, returned in {@link QueryResult#copyIn()}: pgwire answers
 * CopyInResponse, splits the client's CopyData into rows of text fields as {@link #format()} says and hands them over in order. Calls never overlap and all come from one thread at a time.
 */
public interface CopyIn {
    /** The columns the data holds, in order (the field count every row must have). */
    List<String> columns();

    /** The relation copied into, for error context ({@code COPY payments, line 3}). */
    String target();

    /** How the data is split into rows and fields (FORMAT, DELIMITER, NULL, HEADER, QUOTE, ESCAPE). */
    CopyFormat format();

    /**
     * The type of each column, whose binary format a binary COPY's fields are in (each is handed to
     * {@link #row} in the type's text form).
     */
    List<PgType> columnTypes();

    /**
     * One data row; a null field is SQL NULL.
     *
     * @param line the 1-based line of the data, for errors
     * @throws PgException for a row that is not valid: the COPY fails and nothing of it is applied
     */
    void row(long line, String[] fields);

    /** CopyDone: applies every row (all or none) and completes with the result ({@code COPY n}). */
    CompletionStage<QueryResult> finish();

    /** CopyFail, a failed row or a lost connection: nothing is applied. */
    void abort();
}
