package io.coilgun.cluster.task;

import io.coilgun.cluster.kafka.KafkaHeaders;
import io.coilgun.planner.plan.TaskPlan;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The forwards a decider sent that Kafka has not acknowledged yet, oldest first. A checkpoint keeps them with the
 * decider's state ({@link #keep}), so it need not wait for Kafka: a decider opened from that checkpoint sends them
 * again ({@link #carried}) before anything else, and its partitioner tasks skip those they have.
 */
final class UnsentForwards {
    private static final String META = "unsent";

    private final ConcurrentSkipListMap<Long, ProducerRecord<byte[], byte[]>> pending = new ConcurrentSkipListMap<>();
    /** The numbers of the pending forwards that fill an added partitioner (history, not the live decisions). */
    private final Set<Long> fills = ConcurrentHashMap.newKeySet();
    /** The unit's thread's count of forwards sent. */
    private long sent;

    /** A forward is sent: its number, for {@link #acknowledged}; {@code fill} when it is history. */
    long sending(ProducerRecord<byte[], byte[]> forward, boolean fill) {
        pending.put(++sent, forward);
        if (fill) {
            fills.add(sent);
        }
        return sent;
    }

    /** Kafka has forward {@code n} (the producer's thread). */
    void acknowledged(long n) {
        pending.remove(n);
        if (!fills.isEmpty()) {
            fills.remove(n); // (boxes n: only while a partitioner is being filled)
        }
    }

    /**
     * The decider rolled back to its checkpoint (or opened again): what was pending is sent again from there (its
     * checkpoint's unsent forwards, then every record after it), so it is forgotten here; a late acknowledgement of
     * one of them changes nothing.
     */
    void reset() {
        pending.clear();
        fills.clear();
    }

    /**
     * The oldest decision whose live forward Kafka has not acknowledged, {@link Long#MAX_VALUE} when there is none:
     * the decider's committed offset stays at it, so a replica that takes over forwards it again.
     */
    long oldestUnacknowledgedDecision() {
        long oldest = Long.MAX_VALUE;
        for (Map.Entry<Long, ProducerRecord<byte[], byte[]>> e : pending.entrySet()) {
            if (!fills.contains(e.getKey())) {
                oldest = Math.min(oldest, KafkaHeaders.decisionOf(e.getValue().headers()));
            }
        }
        return oldest;
    }

    /** On the unit's thread: every forward up to this number is acknowledged. */
    long acknowledgedThrough() {
        Map.Entry<Long, ProducerRecord<byte[], byte[]>> first = pending.firstEntry();
        return first == null ? sent : first.getKey() - 1;
    }

    /**
     * Keeps the forwards not acknowledged now with the decider's next checkpoint, and those it is to send again
     * ({@code notSentYet}, after them).
     */
    void keep(TaskPlan plan, List<ProducerRecord<byte[], byte[]>> notSentYet) {
        List<ProducerRecord<byte[], byte[]>> all = new ArrayList<>(pending.values());
        all.addAll(notSentYet);
        plan.meta(META, encode(all));
    }

    /** The forwards {@code plan}'s checkpoint kept, oldest first. */
    static List<ProducerRecord<byte[], byte[]>> carried(TaskPlan plan) {
        byte[] kept = plan.meta(META);
        return kept == null ? List.of() : decode(kept);
    }

    static byte[] encode(List<ProducerRecord<byte[], byte[]>> records) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(records.size());
            for (ProducerRecord<byte[], byte[]> r : records) {
                out.writeUTF(r.topic());
                out.writeInt(r.partition());
                writeBytes(out, r.key());
                writeBytes(out, r.value());
                Header[] headers = r.headers().toArray();
                out.writeInt(headers.length);
                for (Header h : headers) {
                    out.writeUTF(h.key());
                    writeBytes(out, h.value());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static List<ProducerRecord<byte[], byte[]>> decode(byte[] bytes) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
            int n = in.readInt();
            List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                String topic = in.readUTF();
                int partition = in.readInt();
                byte[] key = readBytes(in);
                byte[] value = readBytes(in);
                RecordHeaders headers = new RecordHeaders();
                int h = in.readInt();
                for (int j = 0; j < h; j++) {
                    headers.add(in.readUTF(), readBytes(in));
                }
                out.add(new ProducerRecord<>(topic, partition, key, value, headers));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b == null ? -1 : b.length);
        if (b != null) {
            out.write(b);
        }
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        return n < 0 ? null : in.readNBytes(n);
    }
}
