package io.coilgun.pgwire.copy;

/** Splits the CopyData of a {@code COPY … FROM STDIN} into rows, whatever its format. */
public interface CopyDataParser {
    /** The next CopyData message's bytes; complete rows go to the sink at once. */
    void feed(byte[] chunk);

    /** CopyDone: the data must end here (a row cut short is an error). */
    void finish();
}
