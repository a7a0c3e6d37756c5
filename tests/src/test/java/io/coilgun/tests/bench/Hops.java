package io.coilgun.tests.bench;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.HdrHistogram.Histogram;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Where an event's time goes between Kafka's hops, read after a run from the records' own timestamps (each set by
 * its producer when it sent the record, in ms): the front end's publish, a decider's forwards and every task's reply.
 * For a stream with a decider: {@code decide} (publish to the decider's reply), {@code forward} (publish to its first
 * forward), {@code apply} (first forward to the last partitioner's reply) and {@code reply} (publish to the last
 * reply); for a stream with one partitioner only {@code apply} and {@code reply} (publish to its task's reply). The
 * front end's receipt of the replies is not in Kafka: the rest of an event's latency is that.
 */
final class Hops {
    private static final String CORRELATION = "coilgun.correlation";
    private static final String DECISION = "coilgun.decision";
    private static final String PROBE = "coilgun.probe";

    private Hops() {
    }

    /**
     * The hops' p50, p99 and p99.9 (ms) of the events published from {@code skipMs} after the first one on, as
     * result keys {@code hop_<name>_p50_ms} etc.
     */
    static Map<String, String> measure(String bootstrap, String stream, long skipMs) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        String prefix = "coilgun.stream." + stream + ".";
        Map<Long, Long> published = new HashMap<>();
        Map<Long, Long> firstForward = new HashMap<>();
        Map<Long, Long> deciderReply = new HashMap<>();
        Map<Long, Long> lastReply = new HashMap<>();
        boolean decided;
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            Map<String, List<PartitionInfo>> topics = c.listTopics();
            decided = topics.containsKey(prefix + "-decide");
            List<TopicPartition> all = new ArrayList<>();
            topics.forEach((topic, parts) -> {
                if (topic.startsWith(prefix) || topic.startsWith("coilgun.replies.")) {
                    parts.forEach(i -> all.add(new TopicPartition(topic, i.partition())));
                }
            });
            c.assign(all);
            c.seekToBeginning(all);
            Map<TopicPartition, Long> end = c.endOffsets(all);
            long deadline = System.currentTimeMillis() + 120_000;
            while (System.currentTimeMillis() < deadline && all.stream().anyMatch(tp -> c.position(tp) < end.get(tp))) {
                for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (r.topic().startsWith("coilgun.replies.")) {
                        long corr = ByteBuffer.wrap(r.key(), 0, 8).getLong();
                        String task = new String(r.key(), 8, r.key().length - 8,
                                java.nio.charset.StandardCharsets.UTF_8);
                        lastReply.merge(corr, r.timestamp(), Math::max);
                        if (task.endsWith(".-decide")) {
                            deciderReply.put(corr, r.timestamp());
                        }
                        continue;
                    }
                    Header corr = r.headers().lastHeader(CORRELATION);
                    if (corr == null || r.headers().lastHeader(PROBE) != null) {
                        continue;
                    }
                    long id = ByteBuffer.wrap(corr.value()).getLong();
                    boolean forward = r.headers().lastHeader(DECISION) != null;
                    if (forward) {
                        firstForward.merge(id, r.timestamp(), Math::min);
                    } else if (!decided || r.topic().endsWith(".-decide")) {
                        published.putIfAbsent(id, r.timestamp());
                    }
                }
            }
        }
        long start = published.values().stream().mapToLong(Long::longValue).min().orElse(0) + skipMs;
        Map<String, Histogram> h = new java.util.LinkedHashMap<>();
        for (String name : decided ? List.of("decide", "forward", "apply", "reply") : List.of("apply", "reply")) {
            h.put(name, new Histogram(3_600_000L, 3));
        }
        published.forEach((id, at) -> {
            if (at < start) {
                return;
            }
            Long last = lastReply.get(id);
            Long decide = deciderReply.get(id);
            Long fwd = firstForward.get(id);
            if (last != null) {
                h.get("reply").recordValue(Math.max(0, last - at));
                if (!decided) {
                    h.get("apply").recordValue(Math.max(0, last - at));
                }
            }
            if (decide != null) {
                h.get("decide").recordValue(Math.max(0, decide - at));
            }
            if (fwd != null) {
                h.get("forward").recordValue(Math.max(0, fwd - at));
                if (last != null) {
                    h.get("apply").recordValue(Math.max(0, last - fwd));
                }
            }
        });
        Map<String, String> out = new java.util.LinkedHashMap<>();
        out.put("hop_events", published.size() + "/" + firstForward.size() + "/" + lastReply.size());
        h.forEach((name, hist) -> {
            if (hist.getTotalCount() == 0) {
                return; // replies to the node's own front end go in-process, not through Kafka
            }
            out.put("hop_" + name + "_p50_ms", String.valueOf(hist.getValueAtPercentile(50)));
            out.put("hop_" + name + "_p99_ms", String.valueOf(hist.getValueAtPercentile(99)));
            out.put("hop_" + name + "_p999_ms", String.valueOf(hist.getValueAtPercentile(99.9)));
        });
        return out;
    }
}
