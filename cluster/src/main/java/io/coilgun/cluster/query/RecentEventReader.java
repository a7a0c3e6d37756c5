package io.coilgun.cluster.query;

import io.coilgun.cluster.kafka.ValueCodec;
import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskProcessor;
import io.coilgun.planner.model.StreamDef;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a stream's recent events (SELECT … FROM stream) from the reservoirs of its first partitioner's tasks (every
 * event is in each partitioner's tasks), each from the copy leading it ({@link TaskReads}). Blocking: call it from a
 * query thread. One instance per node (it answers the other nodes' reads).
 */
public final class RecentEventReader {
    /** The read of a task's recent events, by another node. */
    static final String READ = "stream.recent";

    private final TaskReads reads;
    private final long span;

    /** @param span how far back from each task's stream time to look (micros) */
    public RecentEventReader(TaskReads reads, long span) {
        this.reads = reads;
        this.span = span;
        reads.serve(READ, this::recent);
    }

    /** Up to {@code limit} most recent events of each task of the stream, task by task. */
    public List<Object[]> read(StreamDef stream, int limit) {
        List<Object[]> events = new ArrayList<>();
        byte[] request = ByteBuffer.allocate(4).putInt(limit).array();
        for (TaskId id : TaskId.allOf(stream, stream.partitionBy().get(0))) {
            byte[] answer = reads.read(id, READ, request, this::recent);
            try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(answer))) {
                int n = in.readInt();
                for (int i = 0; i < n; i++) {
                    events.add(ValueCodec.readAll(in));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return events;
    }

    /** On the task's unit thread. */
    private byte[] recent(TaskProcessor task, byte[] request) {
        List<Object[]> events = task.plan().recentEvents(span, ByteBuffer.wrap(request).getInt());
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + events.size() * 32);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(events.size());
            for (Object[] e : events) {
                ValueCodec.writeAll(out, e);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }
}
