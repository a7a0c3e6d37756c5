package io.coilgun.server.source;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** The last bad records this node's sources met, for {@code coilgun.source_errors} (the newest 1,000). */
final class SourceErrors {
    private static final int KEPT = 1000;
    private static final int EXCERPT = 200;
    private final Deque<Object[]> rows = new ArrayDeque<>();

    synchronized void add(String stream, ConsumerRecord<byte[], byte[]> r, String error) {
        String value = r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8);
        if (value != null && value.length() > EXCERPT) {
            value = value.substring(0, EXCERPT) + "…";
        }
        rows.addLast(new Object[] {stream, r.topic(), r.partition(), r.offset(), error, value,
            System.currentTimeMillis()});
        if (rows.size() > KEPT) {
            rows.removeFirst();
        }
    }

    synchronized List<Object[]> rows() {
        return new ArrayList<>(rows);
    }
}
