package io.coilgun.cluster.sink;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.coilgun.planner.model.AggregationDef;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.MetricDef;
import io.coilgun.planner.model.SinkDef;
import io.coilgun.planner.model.StreamDef;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;

/**
 * How one sink's record of an event reads, on one task: a JSON object with the columns SUBSCRIBE gives — of a
 * metric's sink the event's id (its {@code event_id} column, or {@code event_id} with the id the front end assigned),
 * its event time and the GROUP BY columns; of a stream's, {@code event_id} when it has no id column and every column
 * of the event — then the values as of the event under their INSERT … RETURNING names
 * ({@code <metric>_<aggregation>}).
 * Timestamps are written as Postgres' {@code to_json} writes them ({@code 2026-01-02T03:04:05.123456}), numerics as
 * exact JSON numbers, a double that is not finite as a string. The record's key is the GROUP BY value as text (several
 * as a JSON array), so Kafka keeps one key's records in one partition, in event order.
 */
final class SinkRecordFormat {
    private static final JsonFactory JSON = new JsonFactory();
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ISO_LOCAL_DATE_TIME;

    private final SinkDef sink;
    /** The sink's consumer group (made once: every record names it). */
    private final String group;
    private final StreamDef stream;
    /** Stream columns written before the values: event id, event time, then the key columns. */
    private final int[] columns;
    private final int[] keyColumns;
    /** Where each written value is in the task's results, its name and type. */
    private final int[] resultIndexes;
    private final String[] resultNames;
    private final ColumnType[] resultTypes;

    private SinkRecordFormat(SinkDef sink, StreamDef stream, int[] keyColumns, List<Integer> resultIndexes,
            List<String> resultNames, List<ColumnType> resultTypes) {
        this.sink = sink;
        this.group = sink.group();
        this.stream = stream;
        this.keyColumns = keyColumns;
        List<Integer> cols = new ArrayList<>();
        if (sink.wholeStream()) {
            for (int c = 0; c < stream.columns().size(); c++) {
                cols.add(c); // as SUBSCRIBE to a stream: every column of the event
            }
        } else {
            if (stream.eventIdIndex() >= 0) {
                cols.add(stream.eventIdIndex());
            }
            cols.add(stream.eventTimeIndex());
            for (int k : keyColumns) {
                if (!cols.contains(k)) {
                    cols.add(k);
                }
            }
        }
        this.columns = cols.stream().mapToInt(Integer::intValue).toArray();
        this.resultIndexes = resultIndexes.stream().mapToInt(Integer::intValue).toArray();
        this.resultNames = resultNames.toArray(String[]::new);
        this.resultTypes = resultTypes.toArray(ColumnType[]::new);
    }

    /**
     * The sink's record shape on a task that runs {@code metrics} (in the order of its results), or null when the
     * task writes nothing for it (the metric is not there; a stream's task without metrics).
     */
    static SinkRecordFormat of(SinkDef sink, StreamDef stream, List<MetricDef> metrics) {
        List<Integer> indexes = new ArrayList<>();
        List<String> names = new ArrayList<>();
        List<ColumnType> types = new ArrayList<>();
        int[] key = null;
        int at = 0;
        for (MetricDef m : metrics) {
            int n = m.aggregations().size();
            if (sink.reads(m)) {
                if (key == null) {
                    key = sink.wholeStream() ? new int[] {stream.columnIndex(m.partitioner()).orElseThrow()}
                            : m.groupBy().stream().mapToInt(Integer::intValue).toArray();
                }
                for (int i = 0; i < n; i++) {
                    AggregationDef a = m.aggregations().get(i);
                    indexes.add(at + i);
                    names.add(m.outputColumn(i));
                    types.add(a.resultType());
                }
            }
            at += n;
        }
        return key == null ? null : new SinkRecordFormat(sink, stream, key, indexes, names, types);
    }

    SinkDef sink() {
        return sink;
    }

    String group() {
        return group;
    }

    /** The record's key: the GROUP BY value as text, several as a JSON array. */
    byte[] key(Object[] event) {
        if (keyColumns.length == 1) {
            Object v = value(event, keyColumns[0]);
            if (v == null) {
                return null;
            }
            if (!(v instanceof String) && !(v instanceof Number) && !(v instanceof Boolean)) {
                return json(g -> write(g, v, stream.column(keyColumns[0]).type()));
            }
            return (stream.column(keyColumns[0]).type() == ColumnType.TIMESTAMP ? timestamp((Long) v)
                    : v.toString()).getBytes(StandardCharsets.UTF_8);
        }
        return json(g -> {
            g.writeStartArray();
            for (int c : keyColumns) {
                write(g, value(event, c), stream.column(c).type());
            }
            g.writeEndArray();
        });
    }

    /** The record's value: the event's columns ({@link #columns}) and the sink's values. */
    byte[] value(Object[] event, long assignedId, Object[] results) {
        return json(g -> {
            g.writeStartObject();
            if (stream.eventIdIndex() < 0) {
                g.writeNumberField("event_id", assignedId);
            }
            for (int c : columns) {
                g.writeFieldName(stream.column(c).name());
                write(g, value(event, c), stream.column(c).type());
            }
            for (int i = 0; i < resultIndexes.length; i++) {
                g.writeFieldName(resultNames[i]);
                write(g, resultIndexes[i] < results.length ? results[resultIndexes[i]] : null, resultTypes[i]);
            }
            g.writeEndObject();
        });
    }

    private static Object value(Object[] event, int column) {
        return column < event.length ? event[column] : null; // a column added after the event was written
    }

    private static void write(JsonGenerator g, Object v, ColumnType type) throws IOException {
        if (v == null) {
            g.writeNull();
        } else if (type == ColumnType.TIMESTAMP && v instanceof Long micros) {
            g.writeString(timestamp(micros));
        } else if (v instanceof Double d) {
            if (Double.isFinite(d)) {
                g.writeNumber(d);
            } else {
                g.writeString(d.isNaN() ? "NaN" : d > 0 ? "Infinity" : "-Infinity");
            }
        } else if (v instanceof Float f) {
            g.writeNumber(f);
        } else if (v instanceof Long l) {
            g.writeNumber(l);
        } else if (v instanceof Integer i) {
            g.writeNumber(i);
        } else if (v instanceof BigDecimal b) {
            g.writeNumber(b);
        } else if (v instanceof Boolean b) {
            g.writeBoolean(b);
        } else {
            g.writeString(v.toString());
        }
    }

    /**
     * A timestamp (microseconds since the epoch, UTC) as Postgres' to_json writes one: {@code 2026-01-02T03:04:05},
     * then the fraction of a second without its trailing zeros. Written by hand for years 0 to 9999 (DateTimeFormatter
     * costs a microsecond an event on the task's thread).
     */
    static String timestamp(long micros) {
        long seconds = Math.floorDiv(micros, 1_000_000L);
        int fraction = (int) Math.floorMod(micros, 1_000_000L);
        LocalDateTime t = LocalDateTime.ofEpochSecond(seconds, fraction * 1000, ZoneOffset.UTC);
        if (t.getYear() < 0 || t.getYear() > 9999) {
            return TIMESTAMP.format(t);
        }
        StringBuilder b = new StringBuilder(26);
        digits(b, t.getYear(), 4).append('-');
        digits(b, t.getMonthValue(), 2).append('-');
        digits(b, t.getDayOfMonth(), 2).append('T');
        digits(b, t.getHour(), 2).append(':');
        digits(b, t.getMinute(), 2).append(':');
        digits(b, t.getSecond(), 2);
        if (fraction != 0) {
            int width = 6;
            while (fraction % 10 == 0) {
                fraction /= 10;
                width--;
            }
            digits(b.append('.'), fraction, width);
        }
        return b.toString();
    }

    private static StringBuilder digits(StringBuilder b, int value, int width) {
        String v = Integer.toString(value);
        for (int i = v.length(); i < width; i++) {
            b.append('0');
        }
        return b.append(v);
    }

    private interface Writing {
        void write(JsonGenerator g) throws IOException;
    }

    private static byte[] json(Writing writing) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (JsonGenerator g = JSON.createGenerator(bytes)) {
            writing.write(g);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
