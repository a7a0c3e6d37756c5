package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.CopyFormat;
import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.types.PgTextEncoder;
import io.coilgun.pgwire.types.TextBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes rows of {@code COPY ... TO STDOUT} in a {@link CopyFormat}: one line per row, fields separated by the
 * delimiter, NULL as the NULL string, and each value escaped as Postgres' {@code CopyAttributeOutText} (text
 * format: backslash escapes) or {@code CopyAttributeOutCSV} (CSV: quoted when needed) does. Values come in as
 * their Postgres text output, or as Java values ({@link #appendRow}). Not thread-safe (it reuses one builder).
 */
public final class CopyRowWriter {
    private final CopyFormat format;
    private final StringBuilder line = new StringBuilder(128);
    private final byte[] nullBytes;
    private final byte[] delimiterBytes;
    private static final byte[] END_OF_DATA = {'\\', '.'};
    /** The delimiter and quote as bytes, or -1 when not ASCII (then every field takes the escaping path). */
    private final int delimiter;
    private final int quote;

    public CopyRowWriter(CopyFormat format) {
        this.format = format;
        this.nullBytes = format.nullString().getBytes(StandardCharsets.UTF_8);
        this.delimiterBytes = String.valueOf(format.delimiter()).getBytes(StandardCharsets.UTF_8);
        this.delimiter = format.delimiter() < 0x80 ? format.delimiter() : -1;
        this.quote = !format.isCsv() ? 0 : format.quote() < 0x80 ? format.quote() : -1;
    }

    /**
     * Appends one row to {@code out} as a whole CopyData message ({@code 'd'}, its length, the line ending in a
     * newline), each value written as {@link PgTextEncoder#encode(PgType, Object, TextBuffer)} does
     * ({@link PgType#UNKNOWN}: its {@code toString}). A value that needs no escaping (numbers, most strings) goes
     * straight into {@code out}. When a value cannot be written, nothing of the row stays in {@code out}.
     */
    public void appendRow(PgType[] types, Object[] values, TextBuffer out) {
        int message = out.length();
        out.put((byte) 'd').put((byte) 0).put((byte) 0).put((byte) 0).put((byte) 0); // the length comes last
        try {
            for (int i = 0; i < values.length; i++) {
                if (i > 0) {
                    out.put(delimiterBytes);
                }
                Object v = values[i];
                if (v == null) {
                    out.put(nullBytes);
                    continue;
                }
                int start = out.length();
                if (types[i] == PgType.UNKNOWN) {
                    out.utf8(v.toString());
                } else {
                    PgTextEncoder.encode(types[i], v, out);
                }
                if (needsEscaping(out, start)) {
                    String text = out.string(start);
                    out.truncate(start);
                    line.setLength(0);
                    if (format.isCsv()) {
                        csv(text);
                    } else {
                        text(text);
                    }
                    out.utf8(line);
                }
            }
        } catch (RuntimeException e) {
            out.truncate(message); // a value that cannot be written: no part of its row stays
            throw e;
        }
        out.put((byte) '\n');
        out.putIntAt(message + 1, out.length() - message - 1);
    }

    /**
     * Whether the text written from {@code start} must go through {@link #text}/{@link #csv}: it holds a byte they
     * may escape (UTF-8 never uses ASCII bytes inside a longer character), or in CSV it is the NULL string or {@code \\.}.
     */
    private boolean needsEscaping(TextBuffer out, int start) {
        if (delimiter < 0 || quote < 0) {
            return true;
        }
        byte[] b = out.array();
        int end = out.length();
        if (format.isCsv() && (equals(b, start, end, nullBytes) || equals(b, start, end, END_OF_DATA))) {
            return true; // csv() quotes them
        }
        for (int i = start; i < end; i++) {
            int c = b[i] & 0xFF;
            if (c < 0x20 || c == '\\' || c == delimiter || c == quote) {
                return true;
            }
        }
        return false;
    }

    /** One row as the bytes of one CopyData message (ending in a newline); a null field is SQL NULL. */
    public byte[] row(String[] fields) {
        line.setLength(0);
        for (int i = 0; i < fields.length; i++) {
            if (i > 0) {
                line.append(format.delimiter());
            }
            String field = fields[i];
            if (field == null) {
                line.append(format.nullString());
            } else if (format.isCsv()) {
                csv(field);
            } else {
                text(field);
            }
        }
        line.append('\n');
        return line.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static boolean equals(byte[] b, int start, int end, byte[] what) {
        return Arrays.equals(b, start, end, what, 0, what.length);
    }

    /** The HEADER line: the column names, escaped as values are (never NULL). */
    public byte[] header(String[] names) {
        return row(names);
    }

    private void text(String value) {
        char delimiter = format.delimiter();
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> line.append("\\\\");
                case '\b' -> line.append("\\b");
                case '\f' -> line.append("\\f");
                case '\n' -> line.append("\\n");
                case '\r' -> line.append("\\r");
                case '\t' -> line.append("\\t");
                case 0x0B -> line.append("\\v");
                default -> {
                    if (c == delimiter) {
                        line.append('\\');
                    }
                    line.append(c);
                }
            }
        }
    }

    private void csv(String value) {
        char quote = format.quote();
        char escape = format.escape();
        char delimiter = format.delimiter();
        boolean quoted = value.equals(format.nullString()) || value.equals("\\.");
        for (int i = 0; i < value.length() && !quoted; i++) {
            char c = value.charAt(i);
            quoted = c == delimiter || c == quote || c == '\n' || c == '\r';
        }
        if (!quoted) {
            line.append(value);
            return;
        }
        line.append(quote);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == quote || c == escape) {
                line.append(escape);
            }
            line.append(c);
        }
        line.append(quote);
    }
}
