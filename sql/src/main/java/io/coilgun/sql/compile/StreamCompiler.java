package io.coilgun.sql.compile;

import io.coilgun.planner.error.SqlState;
import io.coilgun.planner.model.ColumnType;
import io.coilgun.planner.model.Durations;
import io.coilgun.planner.model.LatePolicy;
import io.coilgun.planner.model.StreamColumn;
import io.coilgun.planner.model.StreamDef;
import io.coilgun.planner.model.StreamSource;
import io.coilgun.planner.model.Catalog;
import io.coilgun.sql.parser.SqlAlterStream;
import io.coilgun.sql.parser.SqlCreateStream;
import io.coilgun.sql.parser.SqlOption;
import io.coilgun.sql.parser.SqlStreamColumn;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlNode;

/**
 * {@code CREATE STREAM name (columns) WITH (options)} into a {@link StreamDef}. Options (docs/sql.md):
 * <ul>
 *   <li>{@code event_time}: the TIMESTAMP column that orders events (default: the only TIMESTAMP column);
 *   <li>{@code event_id}: the BIGINT, INTEGER or VARCHAR column identifying an event (default: assigned on ingest);
 *   <li>{@code partition_by}: comma-separated fields, one Kafka topic each (required);
 *   <li>{@code partitions}: partitions per topic, 1 to 1024 (default 4);
 *   <li>{@code lateness}: how far behind the stream time an event may be (default '10 seconds');
 *   <li>{@code late_events}: reject (default), clamp or drop;
 *   <li>{@code backfill_horizon}: history kept beyond the longest window, for later backfills (default 0).
 * </ul>
 */
final class StreamCompiler {
    static final int MAX_PARTITIONS = 1024;
    static final int MAX_NAME = 100;
    /** Postgres' largest precision in a NUMERIC type modifier. */
    private static final int NUMERIC_MAX_PRECISION = 1000;
    private static final Pattern TOPIC_SAFE = Pattern.compile("[A-Za-z0-9_]{1," + MAX_NAME + "}");

    private StreamCompiler() {
    }

    static CreateStreamStatement compile(SqlText sql, SqlCreateStream node, String ddl) {
        if (node.getReplace()) {
            throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "CREATE OR REPLACE STREAM is not supported", node);
        }
        String name = node.name().getSimple();
        checkTopicName(sql, name, "stream", node.name());
        List<StreamColumn> columns = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (SqlStreamColumn c : node.columns()) {
            String col = c.name().getSimple();
            if (!seen.add(col)) {
                throw sql.error(SqlState.DUPLICATE_COLUMN, "column \"" + col + "\" specified more than once", c.name());
            }
            columns.add(column(sql, c, c.notNull()));
        }
        StreamDef probe = new StreamDef(name, columns, -1, -1, List.of(), 1, 0, LatePolicy.REJECT, ddl);

        String eventTime = null;
        String eventId = null;
        List<String> partitionBy = List.of();
        int partitions = StreamDef.DEFAULT_PARTITIONS;
        Map<String, Integer> partitionCounts = Map.of();
        long lateness = StreamDef.DEFAULT_LATENESS_MICROS;
        LatePolicy policy = LatePolicy.REJECT;
        long backfillHorizon = 0;
        Long dedupHorizon = null;
        int replicas = 1;
        String kafkaTopic = null;
        StreamSource.Format format = null;
        StreamSource.BadRecords badRecords = null;
        Set<String> given = new HashSet<>();
        for (SqlOption o : node.options()) {
            String key = o.keyName().toLowerCase(Locale.ROOT);
            if (!given.add(key)) {
                throw sql.error(SqlState.SYNTAX_ERROR, "option \"" + key + "\" specified more than once", o.key());
            }
            String value = o.valueAsString();
            switch (key) {
                case "event_time" -> eventTime = value.trim().toLowerCase(Locale.ROOT);
                case "event_id" -> eventId = value.trim().toLowerCase(Locale.ROOT);
                case "partition_by" -> partitionBy = fields(sql, o, value);
                case "partitions" -> {
                    if (value.trim().matches("\\d+")) {
                        partitions = partitions(sql, o, value);
                    } else {
                        partitionCounts = partitionCounts(sql, o, value);
                    }
                }
                case "lateness" -> lateness = duration(sql, o, value, "lateness");
                case "late_events" -> policy = latePolicy(sql, o, value);
                case "backfill_horizon" -> backfillHorizon = duration(sql, o, value, "backfill_horizon");
                case "dedup_horizon" -> dedupHorizon = duration(sql, o, value, "dedup_horizon");
                case "replicas" -> replicas = replicas(sql, o, value);
                case "kafka_topic" -> kafkaTopic = sourceTopic(sql, o, value);
                case "format" -> format = choice(sql, o, value, StreamSource.Format.class);
                case "bad_records" -> badRecords = choice(sql, o, value, StreamSource.BadRecords.class);
                default -> throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "unrecognized stream option \"" + key
                        + "\" (known: event_time, event_id, partition_by, partitions, lateness, late_events, "
                        + "backfill_horizon, dedup_horizon, replicas, kafka_topic, format, bad_records)", o.key());
            }
        }

        int timeIndex = eventTimeIndex(sql, node, probe, eventTime);
        int idIndex = -1;
        if (eventId != null) {
            idIndex = existing(sql, node, probe, eventId, "event_id");
            ColumnType t = columns.get(idIndex).type();
            if (t != ColumnType.BIGINT && t != ColumnType.INTEGER && t != ColumnType.VARCHAR) {
                throw sql.error(SqlState.INVALID_OBJECT_DEFINITION, "event_id column \"" + eventId
                        + "\" must be BIGINT, INTEGER or VARCHAR, not " + t.sqlName(), option(node, "event_id"));
            }
        }
        if (partitionBy.isEmpty()) {
            throw sql.error(SqlState.INVALID_OBJECT_DEFINITION, "stream \"" + name + "\" needs partition_by: the "
                    + "fields its metrics group by, e.g. WITH (partition_by = 'card_id')", node.name());
        }
        for (String field : partitionBy) {
            int i = existing(sql, node, probe, field, "partition_by");
            checkTopicName(sql, field, "partition_by field", option(node, "partition_by"));
            if (i == timeIndex) {
                throw sql.error(SqlState.INVALID_OBJECT_DEFINITION, "the event time column cannot be a partition_by "
                        + "field", option(node, "partition_by"));
            }
        }
        for (String field : partitionCounts.keySet()) {
            if (!partitionBy.contains(field)) {
                throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "partitions names \"" + field + "\", which is not a "
                        + "partition_by field (" + String.join(", ", partitionBy) + ")", option(node, "partitions"));
            }
        }
        if (dedupHorizon != null && dedupHorizon < lateness) {
            throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "dedup_horizon must be at least the lateness ("
                    + Durations.format(lateness) + "): a retry that is not late must always be recognized",
                    option(node, "dedup_horizon"));
        }
        long dedup = dedupHorizon != null ? dedupHorizon : Math.max(StreamDef.DEFAULT_DEDUP_HORIZON_MICROS, lateness);
        StreamSource source = source(sql, node, kafkaTopic, format, badRecords, idIndex);
        return new CreateStreamStatement(new StreamDef(name, columns, timeIndex, idIndex, partitionBy, partitions,
                lateness, policy, ddl, List.of(columns.size()), backfillHorizon, dedup, replicas, partitionCounts, List.of(),
                source), node.ifNotExists());
    }

    /**
     * Stream names and partition_by fields become Kafka topic names ({@code coilgun.stream.<stream>.<field>}),
     * which allow only ASCII letters, digits and {@code _ - .}; dots are kept as separators.
     */
    static void checkTopicName(SqlText sql, String name, String what, SqlNode at) {
        if (!TOPIC_SAFE.matcher(name).matches()) {
            throw sql.error(SqlState.INVALID_NAME, "invalid " + what + " name \"" + name + "\": it names a Kafka "
                    + "topic, so use letters, digits and underscores (at most " + MAX_NAME + " characters)", at);
        }
    }

    /**
     * {@code ALTER STREAM name ADD COLUMN c type}: the next schema version. The new column is nullable (events
     * written before read it as NULL) and goes at the end.
     */
    static AlterStreamStatement alter(SqlText sql, SqlAlterStream node, Catalog catalog, String ddl) {
        String name = node.name().getSimple();
        StreamDef stream = catalog.stream(name).orElseThrow(() -> sql.error(SqlState.UNDEFINED_TABLE,
                "stream \"" + name + "\" does not exist", node.name()));
        if (node.partitioner() != null) {
            return StreamPartitioners.alter(sql, node, stream, catalog, ddl);
        }
        if (node.options() != null) {
            return alterOptions(sql, node, stream, ddl);
        }
        SqlStreamColumn c = node.column();
        String col = c.name().getSimple();
        if (stream.columnIndex(col).isPresent()) {
            throw sql.error(SqlState.DUPLICATE_COLUMN, "column \"" + col + "\" of stream \"" + name
                    + "\" already exists", c.name());
        }
        if (c.notNull()) {
            throw sql.error(SqlState.NOT_NULL_VIOLATION, "column \"" + col + "\" cannot be NOT NULL: the events "
                    + "already in stream \"" + name + "\" have no value for it", c);
        }
        return new AlterStreamStatement(stream.withColumn(column(sql, c, false)), ddl);
    }

    /**
     * {@code ALTER STREAM name SET (replicas = n)}: the options that may change while the stream runs. The others
     * decide where its events are and how they are judged, so they are fixed at CREATE STREAM (0A000).
     */
    private static AlterStreamStatement alterOptions(SqlText sql, SqlAlterStream node, StreamDef stream, String ddl) {
        StreamDef altered = stream;
        for (SqlNode n : node.options()) {
            SqlOption o = (SqlOption) n;
            String key = o.keyName().toLowerCase(Locale.ROOT);
            if (!key.equals("replicas")) {
                throw sql.error(SqlState.FEATURE_NOT_SUPPORTED, "stream option \"" + key + "\" cannot be changed "
                        + "(ALTER STREAM … SET takes replicas)", o.key());
            }
            altered = altered.withReplicas(replicas(sql, o, o.valueAsString()));
        }
        return new AlterStreamStatement(altered, ddl, true);
    }

    private static StreamColumn column(SqlText sql, SqlStreamColumn c, boolean notNull) {
        String name = c.name().getSimple();
        // a qualified type name (schema.type) is no type a stream column takes: its whole text in the error
        String type = String.join(".", c.type().getTypeName().names).toUpperCase(Locale.ROOT);
        ColumnType t = switch (type) {
            case "BOOLEAN", "BOOL" -> ColumnType.BOOLEAN;
            case "INTEGER", "INT", "INT4", "SMALLINT", "INT2", "TINYINT" -> ColumnType.INTEGER;
            case "BIGINT", "INT8" -> ColumnType.BIGINT;
            case "DOUBLE", "FLOAT", "FLOAT8", "REAL", "FLOAT4" -> ColumnType.DOUBLE;
            case "DECIMAL", "NUMERIC" -> ColumnType.NUMERIC;
            case "VARCHAR", "CHAR", "TEXT", "STRING" -> ColumnType.VARCHAR;
            case "TIMESTAMP" -> ColumnType.TIMESTAMP;
            default -> throw sql.error(SqlState.UNDEFINED_OBJECT, "type \"" + type.toLowerCase(Locale.ROOT)
                    + "\" is not supported for stream columns (use BOOLEAN, INTEGER, BIGINT, DOUBLE, NUMERIC, VARCHAR "
                    + "or TIMESTAMP)", c.type());
        };
        if (t != ColumnType.NUMERIC || !(c.type().getTypeNameSpec() instanceof SqlBasicTypeNameSpec spec)
                || spec.getPrecision() < 0) {
            return new StreamColumn(name, t, notNull);
        }
        // Postgres' type modifier: NUMERIC(p) is NUMERIC(p, 0)
        int precision = spec.getPrecision();
        int scale = Math.max(spec.getScale(), 0);
        if (precision < 1 || precision > NUMERIC_MAX_PRECISION) {
            throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "NUMERIC precision " + precision
                    + " must be between 1 and " + NUMERIC_MAX_PRECISION, c.type());
        }
        if (scale > precision) {
            throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "NUMERIC scale " + scale
                    + " must be between 0 and precision " + precision, c.type());
        }
        return new StreamColumn(name, t, notNull, precision, scale);
    }

    private static int eventTimeIndex(SqlText sql, SqlCreateStream node, StreamDef probe, String eventTime) {
        if (eventTime == null) {
            int found = -1;
            for (int i = 0; i < probe.columns().size(); i++) {
                if (probe.column(i).type() == ColumnType.TIMESTAMP) {
                    if (found >= 0) {
                        throw sql.error(SqlState.INVALID_OBJECT_DEFINITION, "stream \"" + probe.name()
                                + "\" has several TIMESTAMP columns: say which is the event time with "
                                + "WITH (event_time = '...')", node.name());
                    }
                    found = i;
                }
            }
            if (found < 0) {
                throw sql.error(SqlState.INVALID_OBJECT_DEFINITION, "stream \"" + probe.name()
                        + "\" needs a TIMESTAMP column for the event time", node.name());
            }
            return found;
        }
        int i = existing(sql, node, probe, eventTime, "event_time");
        if (probe.column(i).type() != ColumnType.TIMESTAMP) {
            throw sql.error(SqlState.INVALID_OBJECT_DEFINITION, "event_time column \"" + eventTime
                    + "\" must be TIMESTAMP, not " + probe.column(i).type().sqlName(), option(node, "event_time"));
        }
        return i;
    }

    private static int existing(SqlText sql, SqlCreateStream node, StreamDef probe, String column, String option) {
        OptionalInt i = probe.columnIndex(column);
        if (i.isEmpty()) {
            throw sql.error(SqlState.UNDEFINED_COLUMN, option + " names column \"" + column
                    + "\", which stream \"" + probe.name() + "\" does not have", option(node, option));
        }
        return i.getAsInt();
    }

    private static SqlOption option(SqlCreateStream node, String key) {
        for (SqlOption o : node.options()) {
            if (o.keyName().equalsIgnoreCase(key)) {
                return o;
            }
        }
        return null;
    }

    private static List<String> fields(SqlText sql, SqlOption o, String value) {
        Set<String> fields = new LinkedHashSet<>();
        for (String f : value.split(",")) {
            String field = f.trim().toLowerCase(Locale.ROOT);
            if (field.isEmpty() || !fields.add(field)) {
                throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "partition_by must be distinct column names "
                        + "separated by commas, got '" + value + "'", o.value());
            }
        }
        return List.copyOf(fields);
    }

    /** The copies of each task, the active included: 1 to 5. */
    private static int replicas(SqlText sql, SqlOption o, String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1 && n <= 5) {
                return n;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "replicas must be a whole number from 1 to 5 (the copies of "
                + "each task on distinct nodes, the active one included), not \"" + value + "\"", o.value());
    }

    static int partitions(SqlText sql, SqlOption o, String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n >= 1 && n <= MAX_PARTITIONS) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "partitions must be a whole number from 1 to "
                + MAX_PARTITIONS + ", got '" + value + "'", o.value());
    }

    /**
     * {@code 'card_id 8, merchant_id 16'}: the partitions of some partitioner topics (the others get the default or
     * an integer {@code partitions}, which cannot be given as well).
     */
    private static Map<String, Integer> partitionCounts(SqlText sql, SqlOption o, String value) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String part : value.split(",")) {
            String[] words = part.trim().split("\\s+");
            if (words.length != 2 || words[0].isEmpty()) {
                throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "partitions is a whole number for every partitioner "
                        + "topic, or a list of partition_by fields each with its number ('card_id 8, merchant_id "
                        + "16'), got '" + value + "'", o.value());
            }
            String field = words[0].toLowerCase(Locale.ROOT);
            if (counts.put(field, partitions(sql, o, words[1])) != null) {
                throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "partitions names \"" + field + "\" twice",
                        o.value());
            }
        }
        return counts;
    }

    private static long duration(SqlText sql, SqlOption o, String value, String what) {
        try {
            long micros = Durations.parse(value);
            if (micros >= 0) {
                return micros;
            }
        } catch (IllegalArgumentException | ArithmeticException e) {
            // reported below
        }
        throw sql.error(SqlState.INVALID_PARAMETER_VALUE, what + " must be a duration such as '10 seconds' "
                + "or '30 days', got '" + value + "'", o.value());
    }

    /** The Kafka topic a stream is fed from: a name Kafka takes, not one of Coilgun's own topics. */
    static String sourceTopic(SqlText sql, SqlOption o, String value) {
        return kafkaTopic(sql, o.value(), value, "kafka_topic");
    }

    /** A Kafka topic named in a statement ({@code what}): a name Kafka takes, not one of Coilgun's own topics. */
    static String kafkaTopic(SqlText sql, SqlNode at, String value, String what) {
        String topic = value.trim();
        if (!topic.matches("[A-Za-z0-9._-]{1,249}") || topic.equals(".") || topic.equals("..")) {
            throw sql.error(SqlState.INVALID_PARAMETER_VALUE, what + " \"" + value + "\" is not a Kafka topic name "
                    + "(letters, digits, '.', '_' and '-', at most 249)", at);
        }
        if (topic.startsWith("coilgun.")) {
            throw sql.error(SqlState.INVALID_PARAMETER_VALUE, what + " \"" + topic + "\" is one of Coilgun's own "
                    + "topics", at);
        }
        return topic;
    }

    /** One of {@code type}'s constants, named in any case. */
    private static <E extends Enum<E>> E choice(SqlText sql, SqlOption o, String value, Class<E> type) {
        try {
            return Enum.valueOf(type, value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            List<String> names = java.util.Arrays.stream(type.getEnumConstants())
                    .map(c -> c.name().toLowerCase(Locale.ROOT)).toList();
            throw sql.error(SqlState.INVALID_PARAMETER_VALUE, o.keyName().toLowerCase(Locale.ROOT) + " must be "
                    + String.join(" or ", names) + ", not '" + value + "'", o.value());
        }
    }

    /**
     * The stream's source, or null without kafka_topic. Its records may be read again after a failure, so the stream
     * needs an event id: a record read twice is then a duplicate, not counted again.
     */
    private static StreamSource source(SqlText sql, SqlCreateStream node, String topic, StreamSource.Format format,
            StreamSource.BadRecords badRecords, int idIndex) {
        if (topic == null) {
            if (format != null || badRecords != null) {
                throw sql.error(SqlState.INVALID_PARAMETER_VALUE, (format != null ? "format" : "bad_records")
                        + " is an option of a stream fed from a Kafka topic: give kafka_topic too",
                        option(node, format != null ? "format" : "bad_records"));
            }
            return null;
        }
        if (idIndex < 0) {
            throw sql.error(SqlState.INVALID_OBJECT_DEFINITION, "a stream fed from a Kafka topic needs event_id: "
                    + "a record read again after a failure is then recognized, not counted twice",
                    option(node, "kafka_topic"));
        }
        return new StreamSource(topic, format == null ? StreamSource.Format.JSON : format,
                badRecords == null ? StreamSource.BadRecords.SKIP : badRecords);
    }

    private static LatePolicy latePolicy(SqlText sql, SqlOption o, String value) {
        try {
            return LatePolicy.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw sql.error(SqlState.INVALID_PARAMETER_VALUE, "late_events must be reject, clamp or drop, got '"
                    + value + "'", o.value());
        }
    }

}
