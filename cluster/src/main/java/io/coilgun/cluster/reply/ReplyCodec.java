package io.coilgun.cluster.reply;

import io.coilgun.cluster.kafka.ValueCodec;
import io.coilgun.planner.model.MetricDef;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The value of a reply record. Its key is the 8-byte correlation id followed by the answering task's topic in UTF-8
 * ({@link #replyKey}).
 * <pre>
 * byte status, UTF message, short metric count,
 *   per metric: UTF name, short value count, per value: a {@link ValueCodec} value,
 * [short followers: a decider's, the partitioners that answer after it]
 * </pre>
 */
public final class ReplyCodec {
    private ReplyCodec() {
    }

    public static byte[] encode(ReplyStatus status, String message, List<MetricDef> metrics, Object[] results) {
        return encode(status, message, metrics, results, -1);
    }

    /** A reply; a decider's says how many partitioners answer after it ({@code followers}, -1: not said). */
    public static byte[] encode(ReplyStatus status, String message, List<MetricDef> metrics, Object[] results,
            int followers) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeByte(status.ordinal());
            out.writeUTF(message == null ? "" : message);
            out.writeShort(status == ReplyStatus.APPLIED ? metrics.size() : 0);
            if (status == ReplyStatus.APPLIED) {
                int at = 0;
                for (MetricDef m : metrics) {
                    out.writeUTF(m.name());
                    int n = m.aggregations().size();
                    out.writeShort(n);
                    for (int i = 0; i < n; i++) {
                        ValueCodec.write(out, results[at++]);
                    }
                }
            }
            if (followers >= 0) {
                out.writeShort(followers);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static Reply decode(byte[] key, byte[] value) {
        long correlation = ByteBuffer.wrap(key).getLong();
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            ReplyStatus status = ReplyStatus.of(in.readByte());
            String message = in.readUTF();
            int metricCount = in.readShort();
            Map<String, Object[]> metrics = new LinkedHashMap<>();
            for (int m = 0; m < metricCount; m++) {
                String name = in.readUTF();
                Object[] values = new Object[in.readShort()];
                for (int i = 0; i < values.length; i++) {
                    values[i] = ValueCodec.read(in);
                }
                metrics.put(name, values);
            }
            int followers = in.available() >= 2 ? in.readShort() : -1;
            return new Reply(correlation, status, message, metrics,
                    new String(key, 8, key.length - 8, StandardCharsets.UTF_8), followers);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The key of a reply to the record that carried {@code correlation}, answered by a task of {@code topic}. */
    public static byte[] replyKey(byte[] correlation, String topic) {
        byte[] name = topic.getBytes(StandardCharsets.UTF_8);
        byte[] key = Arrays.copyOf(correlation, correlation.length + name.length);
        System.arraycopy(name, 0, key, correlation.length, name.length);
        return key;
    }

    public static byte[] correlationKey(long correlation) {
        return ByteBuffer.allocate(8).putLong(correlation).array();
    }
}
