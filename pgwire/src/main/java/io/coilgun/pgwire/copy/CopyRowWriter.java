package io.coilgun.pgwire.copy;

import io.coilgun.pgwire.spi.CopyFormat;
import java.nio.charset.StandardCharsets;

/**
 * Writes rows of {@code COPY ... TO STDOUT} in a {@link CopyFormat}: one line per row, fields separated by the
 * delimiter, NULL as the NULL string, and each value escaped as Postgres' {@code CopyAttributeOutText} (text
 * format: backslash escapes) or {@code CopyAttributeOutCSV} (CSV: quoted when needed) does. Values come in as
 * their Postgres text output. Not thread-safe (it reuses one builder).
 */
public final class CopyRowWriter {
    private final CopyFormat format;
    private final StringBuilder line = new StringBuilder(128);

    public CopyRowWriter(CopyFormat format) {
        this.format = format;
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
