package io.coilgun.planner.model;

import java.util.Locale;

/**
 * Where a stream's events also come from besides INSERT and COPY: an existing Kafka topic whose records the
 * cluster's nodes read (options {@code kafka_topic}, {@code format}, {@code bad_records} of CREATE STREAM).
 *
 * @param topic the topic, on the cluster's Kafka
 * @param format how a record's value reads as an event
 * @param badRecords what a record that is not a valid event does
 */
public record StreamSource(String topic, Format format, BadRecords badRecords) {
    /** A record's value: a JSON object whose fields are named as the columns, or a CSV line of every column. */
    public enum Format {
        JSON, CSV;

        public String sqlName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * A record that is no valid event (malformed, a field of the wrong type, a missing event time): {@code SKIP}
     * records it in {@code coilgun.source_errors} and reads on; {@code STOP} stops the source at it.
     */
    public enum BadRecords {
        SKIP, STOP;

        public String sqlName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** As {@code coilgun.streams} shows it: {@code kafka topic payments (json, bad records skip)}. */
    public String describe() {
        return "kafka topic " + topic + " (" + format.sqlName() + ", bad records " + badRecords.sqlName() + ")";
    }
}
