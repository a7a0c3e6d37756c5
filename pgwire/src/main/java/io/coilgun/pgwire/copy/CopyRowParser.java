package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.SqlStates;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Turns the payloads of a {@code COPY ... FROM STDIN} stream's CopyData messages (text or CSV format, UTF-8) into
 * rows of text fields, as Postgres 18's {@code copyfromparse.c} reads them: {@link #feed} each payload as it
 * arrives, in any split, then call {@link #finish} at CopyDone. Each row goes to the {@link RowSink} as soon as
 * its line is complete, so rows before a bad line are handed over before the error. This class reads the lines
 * (newlines, the end marker, UTF-8, the header); a {@link FieldSplitter} splits each into its fields.
 *
 * <p>What Postgres does, and so this does:
 * <ul>
 * <li>Lines end with {@code \n}, {@code \r\n} or {@code \r}, whichever the first line ends with; another style
 *     later is an error ("literal carriage return found in data", ...). A last line without a newline is a row.</li>
 * <li>Text format: {@code \.} alone on a line ends the data; whatever follows until CopyDone is ignored. Backslash
 *     escapes {@code \b \f \n \r \t \v \\}, {@code \}1-3 octal digits, {@code \x}1-2 hex digits, any other
 *     {@code \c} is c (a backslash-newline is a newline in the data). A field whose raw text equals the NULL string
 *     ({@code \N}) is NULL.</li>
 * <li>CSV: quoted fields with the quote doubled or escaped, spanning lines; an unquoted field equal to the NULL
 *     string (empty) is NULL, a quoted one never is. {@code \.} alone on a line ends the data, as in Postgres 15
 *     (the server version Coilgun reports, and what psql before 18 sends after inline CSV data; Postgres 18 reads
 *     it as data); a {@code \.} anywhere else is data.</li>
 * <li>Input must be valid UTF-8 (no NUL bytes): the error comes when the reader reaches the bad bytes, as in
 *     Postgres, so nothing after a {@code \.} is checked.</li>
 * <li>Line numbers count the lines Postgres counts: the header is line 1, and a CSV row spanning lines counts
 *     the newlines inside its quotes (Postgres' quirk: the ones of the newline style seen so far, {@code \r}
 *     while none has been seen), so a row's number is that of its last physical line.</li>
 * </ul>
 *
 * <p>One row (the raw bytes of its line, without the newline) may not be longer than the limit given: a longer
 * one is an error (54000) found as soon as the limit is passed, so memory stays bounded. Not thread-safe. After
 * an error, or a RowSink's exception, the parser is spent.
 */
public final class CopyRowParser implements CopyDataParser {
    /** Receives each row: its line number and one field per expected column, null for NULL. */
    @FunctionalInterface
    public interface RowSink {
        void row(long lineNumber, String[] fields);
    }

    /** The default limit on one row's raw size, 1 MiB. */
    public static final int DEFAULT_MAX_ROW_BYTES = 1 << 20;

    private static final int EOL_UNKNOWN = 0;
    private static final int EOL_NL = 1;
    private static final int EOL_CR = 2;
    private static final int EOL_CRNL = 3;

    private enum State {
        /** Reading a line. */
        LINE,
        /**
         * CSV: a {@code \r} waits for the next character (or the end) to arrive before it is read, as in Postgres,
         * whose CSV reader fetches the character after every {@code \r} first.
         */
        CSV_CR,
        /** After a line-ending {@code \r} whose next byte tells whether it is {@code \r\n}. */
        AFTER_CR,
        /** Text format: after a backslash, whose next byte is data or the {@code .} of {@code \.}. */
        AFTER_BACKSLASH,
        /** Text format: after {@code \.}, which must be followed by the line's newline. */
        AFTER_MARKER,
        /** Text format, {@code \r\n} lines: after {@code \.\r}. */
        AFTER_MARKER_CR,
        /** The data has ended ({@code \.} or the header-only end); later bytes are ignored. */
        ENDED,
        /** {@link #finish} has been called. */
        FINISHED,
        /** An error was thrown; the parser is spent. */
        FAILED
    }

    private final boolean csv;
    private final byte quote;
    /** The CSV escape byte for line reading: -1 when it is the quote, which then just toggles quoting. */
    private final int lineEscape;
    private final String nullString;
    private final CopyFormat.Header header;
    private final String[] columns;
    private final int maxRowBytes;
    private final RowSink sink;
    private final CopyErrors errors;
    /** Splits each line read into its fields. */
    private final FieldSplitter splitter;
    /** Bytes that cannot be appended to the line without a look at the state: indexed by byte below 0x80. */
    private final boolean[] special = new boolean[0x80];

    private State state = State.LINE;
    private byte[] line;
    private int lineLen;
    private int eol = EOL_UNKNOWN;
    private boolean inQuote;
    private boolean lastWasEscape;
    private boolean headerPending;
    /** The number of the line being read. */
    private long lineNumber = 1;
    private long rows;
    private boolean endedByMarker;
    /** A multi-byte UTF-8 character being received, passed on once whole and valid. */
    private final byte[] pendingChar = new byte[4];
    private int pendingLen;
    private int pendingNeed;

    /** A parser with the default row limit ({@link #DEFAULT_MAX_ROW_BYTES}). */
    public CopyRowParser(CopyFormat format, String table, List<String> columns, RowSink sink) {
        this(format, table, columns, DEFAULT_MAX_ROW_BYTES, sink);
    }

    /**
     * @param format the COPY options
     * @param table the table name, as Postgres shows it in an error's context
     * @param columns the names of the columns the rows fill, in order: the number of fields a row must have,
     *     and the names HEADER MATCH checks
     * @param maxRowBytes the most raw bytes one row's line may have (at least 1)
     * @param sink receives each row as it completes
     */
    public CopyRowParser(CopyFormat format, String table, List<String> columns, int maxRowBytes, RowSink sink) {
        Objects.requireNonNull(format, "format");
        this.errors = new CopyErrors(Objects.requireNonNull(table, "table"));
        this.columns = columns.toArray(new String[0]);
        for (String column : this.columns) {
            Objects.requireNonNull(column, "column name");
        }
        if (maxRowBytes < 1) {
            throw new IllegalArgumentException("maxRowBytes must be at least 1: " + maxRowBytes);
        }
        this.maxRowBytes = maxRowBytes;
        this.sink = Objects.requireNonNull(sink, "sink");
        this.csv = format.isCsv();
        this.splitter = FieldSplitter.of(format, errors);
        this.quote = (byte) format.quote();
        this.lineEscape = format.escape() == format.quote() ? -1 : format.escape();
        this.nullString = format.nullString();
        this.header = format.header();
        this.headerPending = header != CopyFormat.Header.FALSE;
        this.line = new byte[Math.min(1024, maxRowBytes)];
        special[0] = true;
        special['\r'] = true;
        special['\n'] = true;
        if (csv) {
            special[format.quote()] = true;
            special[format.escape()] = true;
        } else {
            special['\\'] = true;
        }
    }

    /** Feeds one CopyData payload. */
    public void feed(byte[] chunk) {
        feed(chunk, 0, chunk.length);
    }

    /** Feeds {@code length} bytes of {@code chunk} from {@code offset}. */
    public void feed(byte[] chunk, int offset, int length) {
        Objects.checkFromIndexSize(offset, length, chunk.length);
        requireOpen();
        try {
            int end = offset + length;
            for (int i = offset; i < end; i++) {
                int b = chunk[i] & 0xff;
                if (b < 0x80 && !special[b] && state == State.LINE && pendingNeed == 0 && !lastWasEscape
                        && (b != '\\' || lineLen != 0)) {
                    append(b);
                } else {
                    if (state == State.ENDED) {
                        return;
                    }
                    receive(b);
                }
            }
        } catch (RuntimeException | Error e) {
            state = State.FAILED;
            throw e;
        }
    }

    /** The end of the data (CopyDone): a last line without a newline is a row. */
    public void finish() {
        requireOpen();
        try {
            if (state != State.ENDED) {
                if (pendingNeed > 0) {
                    throw invalidEncoding(pendingChar, 0, pendingLen);
                }
                if (state == State.CSV_CR) {
                    state = State.LINE;
                    lineByte('\r');
                }
                switch (state) {
                    case AFTER_CR -> {
                        // Postgres peeks past the \r and finds the end instead of \n.
                        if (eol == EOL_CRNL) {
                            throw literalCarriageReturn();
                        }
                        eol = EOL_CR;
                        state = State.LINE;
                        endOfLine(false);
                        endOfLine(true);
                    }
                    case AFTER_BACKSLASH -> {
                        // A backslash just before the end is data; the field splitter drops it.
                        state = State.LINE;
                        endOfLine(true);
                    }
                    case AFTER_MARKER, AFTER_MARKER_CR -> throw readError("end-of-copy marker is not alone on its line");
                    default -> endOfLine(true);
                }
            }
            state = State.FINISHED;
        } catch (RuntimeException | Error e) {
            state = State.FAILED;
            throw e;
        }
    }

    /** The rows handed to the sink so far. */
    public long rowCount() {
        return rows;
    }

    /** Whether the text format's end marker {@code \.} was read: later bytes are ignored. */
    public boolean endMarkerSeen() {
        return endedByMarker;
    }

    private void requireOpen() {
        if (state == State.FAILED) {
            throw new IllegalStateException("COPY parser failed earlier");
        }
        if (state == State.FINISHED) {
            throw new IllegalStateException("COPY parser already finished");
        }
    }

    /** Checks UTF-8 as Postgres does, passing each valid character's bytes on to the line reader. */
    private void receive(int b) {
        if (pendingNeed > 0) {
            pendingChar[pendingLen++] = (byte) b;
            if (pendingLen < pendingNeed) {
                return;
            }
            int n = pendingLen;
            pendingNeed = 0;
            pendingLen = 0;
            if (!Utf8Check.isLegal(pendingChar, 0, n)) {
                throw invalidEncoding(pendingChar, 0, n);
            }
            for (int k = 0; k < n; k++) {
                step(pendingChar[k] & 0xff);
            }
            return;
        }
        if (b < 0x80) {
            if (b == 0) {
                throw invalidEncoding(new byte[] {0}, 0, 1);
            }
            step(b);
            return;
        }
        int length = Utf8Check.length(b);
        if (length == 1) {
            throw invalidEncoding(new byte[] {(byte) b}, 0, 1);
        }
        pendingChar[0] = (byte) b;
        pendingLen = 1;
        pendingNeed = length;
    }

    /** One byte through the line reader: Postgres' CopyReadLineText. */
    private void step(int c) {
        switch (state) {
            case LINE -> {
            }
            case CSV_CR -> {
                state = State.LINE;
                lineByte('\r');
                step(c);
                return;
            }
            case AFTER_CR -> {
                state = State.LINE;
                if (c == '\n') {
                    eol = EOL_CRNL;
                    endOfLine(false);
                    return;
                }
                if (eol == EOL_CRNL) {
                    throw literalCarriageReturn();
                }
                eol = EOL_CR;
                endOfLine(false);
                // c begins the next line
            }
            case AFTER_BACKSLASH -> {
                if (c == '.') {
                    state = State.AFTER_MARKER;
                } else if (csv) {
                    // in CSV a backslash is data; only "\." alone on a line is the end marker
                    state = State.LINE;
                    lineByte(c);
                } else {
                    // the byte after a backslash is data, even a newline
                    state = State.LINE;
                    append(c);
                }
                return;
            }
            case AFTER_MARKER -> {
                if (csv && c != '\r' && c != '\n') {
                    state = State.LINE; // "\." followed by more: data in CSV
                    append('.');
                    lineByte(c);
                    return;
                }
                if (eol == EOL_CRNL) {
                    if (c == '\n') {
                        throw readError("end-of-copy marker does not match previous newline style");
                    }
                    if (c != '\r') {
                        throw readError("end-of-copy marker is not alone on its line");
                    }
                    state = State.AFTER_MARKER_CR;
                } else {
                    endMarker(c);
                }
                return;
            }
            case AFTER_MARKER_CR -> {
                endMarker(c);
                return;
            }
            default -> throw new IllegalStateException(state.name());
        }
        if (csv && c == '\r') {
            state = State.CSV_CR;
            return;
        }
        lineByte(c);
    }

    /** A byte of a line in the LINE state. */
    private void lineByte(int c) {
        if (csv) {
            if (inQuote && c == lineEscape) {
                lastWasEscape = !lastWasEscape;
            }
            if (c == (quote & 0xff) && !lastWasEscape) {
                inQuote = !inQuote;
            }
            if (c != lineEscape) {
                lastWasEscape = false;
            }
            if (inQuote) {
                if (c == (eol == EOL_NL ? '\n' : '\r')) {
                    lineNumber++;
                }
                append(c);
                return;
            }
        }
        if (c == '\r') {
            if (eol == EOL_UNKNOWN || eol == EOL_CRNL) {
                state = State.AFTER_CR;
            } else if (eol == EOL_NL) {
                throw literalCarriageReturn();
            } else {
                endOfLine(false);
            }
        } else if (c == '\n') {
            if (eol == EOL_CR || eol == EOL_CRNL) {
                throw csv
                        ? readError("unquoted newline found in data", "Use quoted CSV field to represent newline.")
                        : readError("literal newline found in data", "Use \"\\n\" to represent newline.");
            }
            eol = EOL_NL;
            endOfLine(false);
        } else if (c == '\\' && (!csv || lineLen == 0)) {
            // text: an escape. CSV: at the start of a line, maybe the end marker "\." alone on its line, which ends
            // the data as in Postgres 15 (the version Coilgun reports; psql before 18 sends it after inline data)
            append(c);
            state = State.AFTER_BACKSLASH;
        } else {
            append(c);
        }
    }

    /** The newline after {@code \.}: it must match the data's newline style, and nothing may precede the marker. */
    private void endMarker(int c) {
        if (c != '\r' && c != '\n') {
            throw readError("end-of-copy marker is not alone on its line");
        }
        if ((eol == EOL_NL && c != '\n') || (eol == EOL_CRNL && c != '\n') || (eol == EOL_CR && c != '\r')) {
            throw readError("end-of-copy marker does not match previous newline style");
        }
        if (lineLen > 1) { // more than the marker's backslash
            throw readError("end-of-copy marker is not alone on its line");
        }
        lineLen = 0;
        state = State.LINE;
        endedByMarker = true;
        endOfLine(true);
    }

    private CopyFormatException literalCarriageReturn() {
        return csv
                ? readError("unquoted carriage return found in data",
                        "Use quoted CSV field to represent carriage return.")
                : readError("literal carriage return found in data", "Use \"\\r\" to represent carriage return.");
    }

    /**
     * A line is complete; {@code atEnd} when the data ended instead of a newline, in which case an empty line is
     * no row. Postgres' NextCopyFromRawFields and NextCopyFrom.
     */
    private void endOfLine(boolean atEnd) {
        if (headerPending) {
            headerPending = false;
            if (header == CopyFormat.Header.MATCH) {
                checkHeader();
            }
        } else if (!atEnd || lineLen > 0) {
            String[] fields = new String[columns.length];
            int count = splitter.split(line, lineLen, lineNumber, fields);
            if (columns.length > 0 && count > columns.length) {
                throw lineError(SqlStates.BAD_COPY_FILE_FORMAT, "extra data after last expected column");
            }
            if (count < columns.length) {
                throw lineError(SqlStates.BAD_COPY_FILE_FORMAT, "missing data for column \"" + columns[count] + "\"");
            }
            rows++;
            sink.row(lineNumber, fields);
        }
        lineLen = 0;
        inQuote = false;
        lastWasEscape = false;
        if (atEnd) {
            state = State.ENDED;
        } else {
            lineNumber++;
        }
    }

    private void checkHeader() {
        String[] names = new String[columns.length];
        int count = splitter.split(line, lineLen, lineNumber, names);
        if (count != columns.length) {
            throw lineError(SqlStates.BAD_COPY_FILE_FORMAT, "wrong number of fields in header line: got " + count
                    + ", expected " + columns.length);
        }
        for (int i = 0; i < names.length; i++) {
            if (names[i] == null) {
                throw lineError(SqlStates.BAD_COPY_FILE_FORMAT, "column name mismatch in header line field " + (i + 1)
                        + ": got null value (\"" + nullString + "\"), expected \"" + columns[i] + "\"");
            }
            if (!names[i].equals(columns[i])) {
                throw lineError(SqlStates.BAD_COPY_FILE_FORMAT, "column name mismatch in header line field " + (i + 1)
                        + ": got \"" + names[i] + "\", expected \"" + columns[i] + "\"");
            }
        }
    }

    private void append(int c) {
        if (lineLen == line.length) {
            if (lineLen >= maxRowBytes) {
                throw readError(SqlStates.PROGRAM_LIMIT_EXCEEDED,
                        "COPY row exceeds the maximum size of " + maxRowBytes + " bytes", null);
            }
            line = Arrays.copyOf(line, (int) Math.min(2L * line.length, maxRowBytes));
        }
        line[lineLen++] = (byte) c;
    }

    /** An error found while reading a line: the context has no line text (Postgres' line_buf is not valid). */
    private CopyFormatException readError(String message) {
        return readError(SqlStates.BAD_COPY_FILE_FORMAT, message, null);
    }

    private CopyFormatException readError(String message, String hint) {
        return readError(SqlStates.BAD_COPY_FILE_FORMAT, message, hint);
    }

    private CopyFormatException readError(String sqlState, String message, String hint) {
        return errors.reading(lineNumber, sqlState, message, hint);
    }

    /** An error in a line already read: the context shows the line. */
    private CopyFormatException lineError(String sqlState, String message) {
        return errors.inLine(lineNumber, line, lineLen, sqlState, message);
    }

    /** Bytes that are not UTF-8, found while reading. */
    private CopyFormatException invalidEncoding(byte[] bytes, int offset, int available) {
        return errors.invalidEncoding(lineNumber, bytes, offset, available, null);
    }
}
