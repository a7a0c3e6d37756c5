package io.coilgun.server.source;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.StreamSource;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A source record's value as the text fields of one event, one per column of the stream (null: NULL), which COPY's
 * conversion then checks and converts ({@code StatementCompiler.copyRow}):
 * <ul>
 *   <li>JSON: an object whose fields are named as the columns (in any case); a missing field or {@code null} is
 *   NULL, a string its text, a number or boolean as written; a number for a timestamp column is milliseconds since
 *   the epoch (UTC); a nested object or array is its JSON text;
 *   <li>CSV: one line, the columns in order, quoted with {@code "} where needed ({@code ""} in a quoted field is a
 *   quote); an empty unquoted field is NULL.
 * </ul>
 * A value that is no event throws {@link BadRecordException}.
 */
final class SourceRecordFormat {
    private static final ObjectMapper JSON = new ObjectMapper();

    private SourceRecordFormat() {
    }

    /** The text fields of {@code value} for {@code stream}'s columns. */
    static String[] fields(StreamDef stream, StreamSource.Format format, byte[] value) {
        if (value == null) {
            throw new BadRecordException("the record has no value");
        }
        return format == StreamSource.Format.JSON ? json(stream, value) : csv(stream,
                new String(value, StandardCharsets.UTF_8));
    }

    private static String[] json(StreamDef stream, byte[] value) {
        JsonNode root;
        try {
            root = JSON.readTree(value);
        } catch (JsonProcessingException e) {
            throw new BadRecordException("not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new BadRecordException("not JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new BadRecordException("not a JSON object");
        }
        List<StreamColumn> columns = stream.columns();
        String[] fields = new String[columns.size()];
        for (int i = 0; i < fields.length; i++) {
            JsonNode v = field(root, columns.get(i).name());
            if (v == null || v.isNull()) {
                continue;
            }
            if (v.isNumber() && columns.get(i).type() == ColumnType.TIMESTAMP) {
                fields[i] = LocalDateTime.ofInstant(Instant.ofEpochMilli(v.asLong()), ZoneOffset.UTC).toString();
            } else if (v.isValueNode()) {
                fields[i] = v.asText();
            } else {
                fields[i] = v.toString();
            }
        }
        return fields;
    }

    /** The field named {@code column}, or if none, the one of that name in another case. */
    private static JsonNode field(JsonNode object, String column) {
        JsonNode v = object.get(column);
        if (v != null) {
            return v;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> e = it.next();
            if (e.getKey().equalsIgnoreCase(column)) {
                return e.getValue();
            }
        }
        return null;
    }

    private static String[] csv(StreamDef stream, String line) {
        List<String> out = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        boolean wasQuoted = false;
        int end = line.endsWith("\r\n") ? line.length() - 2 : line.endsWith("\n") ? line.length() - 1 : line.length();
        for (int i = 0; i < end; i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < end && line.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
                wasQuoted = true;
            } else if (c == ',') {
                out.add(field.length() == 0 && !wasQuoted ? null : field.toString());
                field.setLength(0);
                wasQuoted = false;
            } else {
                field.append(c);
            }
        }
        if (quoted) {
            throw new BadRecordException("a quoted CSV field is not closed");
        }
        out.add(field.length() == 0 && !wasQuoted ? null : field.toString());
        if (out.size() != stream.columns().size()) {
            throw new BadRecordException("CSV line of " + out.size() + " fields, the stream has "
                    + stream.columns().size() + " columns");
        }
        return out.toArray(String[]::new);
    }

    /** A record that is no event of the stream, and why. */
    static final class BadRecordException extends RuntimeException {
        BadRecordException(String message) {
            super(message, null, false, false);
        }
    }
}
