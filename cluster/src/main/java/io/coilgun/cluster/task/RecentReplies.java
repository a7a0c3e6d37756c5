package io.coilgun.cluster.task;

import java.util.Arrays;
import java.util.function.Consumer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The replies a replica computed but did not send, for its last {@link #CAPACITY} records: when it is promoted, it
 * sends those of the records after the last offset the old active committed (whose replies the active may not have
 * sent before it died), so statements still waiting get their answer. Front ends ignore a reply to a statement
 * already answered or no longer waiting.
 */
final class RecentReplies {
    static final int CAPACITY = 4096;

    private final long[] offsets = new long[CAPACITY];
    @SuppressWarnings("unchecked")
    private final ProducerRecord<byte[], byte[]>[] replies = new ProducerRecord[CAPACITY];
    private int next;
    private int size;

    void add(long offset, ProducerRecord<byte[], byte[]> reply) {
        offsets[next] = offset;
        replies[next] = reply;
        next = (next + 1) % CAPACITY;
        size = Math.min(size + 1, CAPACITY);
    }

    /** The oldest offset kept, or -1 when none. */
    long oldest() {
        return size == 0 ? -1 : offsets[(next - size + CAPACITY) % CAPACITY];
    }

    /** Hands over the replies of records at {@code from} or later, oldest first, then forgets them all. */
    int drainFrom(long from, Consumer<ProducerRecord<byte[], byte[]>> send) {
        int sent = 0;
        for (int i = 0; i < size; i++) {
            int at = (next - size + i + CAPACITY) % CAPACITY;
            if (offsets[at] >= from) {
                send.accept(replies[at]);
                sent++;
            }
        }
        clear();
        return sent;
    }

    void clear() {
        Arrays.fill(replies, null);
        size = 0;
        next = 0;
    }
}
