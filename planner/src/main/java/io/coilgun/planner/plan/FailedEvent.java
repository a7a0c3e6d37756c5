package io.coilgun.planner.plan;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * An event its task could not apply: the task rolled back to its last checkpoint and skips this record from then
 * on (see {@link TaskPlan#recordFailedEvent}). Kept in the task's state store, so a restart skips it too, and shown
 * in {@code coilgun.failed_events}.
 *
 * @param offset the record's Kafka offset in the task's partition
 * @param eventId the event's id as text, or null when it could not be decoded
 * @param eventTime the event time in micros, or null when it could not be decoded
 * @param error what the task threw
 * @param failedAtMillis when it failed (wall clock)
 */
public record FailedEvent(long offset, String eventId, Long eventTime, String error, long failedAtMillis) {

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(128);
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeLong(offset);
            out.writeBoolean(eventId != null);
            if (eventId != null) {
                out.writeUTF(clip(eventId));
            }
            out.writeBoolean(eventTime != null);
            if (eventTime != null) {
                out.writeLong(eventTime);
            }
            out.writeUTF(clip(error));
            out.writeLong(failedAtMillis);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    static FailedEvent decode(byte[] value) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(value))) {
            long offset = in.readLong();
            String id = in.readBoolean() ? in.readUTF() : null;
            Long time = in.readBoolean() ? in.readLong() : null;
            return new FailedEvent(offset, id, time, in.readUTF(), in.readLong());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** writeUTF takes at most 65,535 bytes; an error message needs far less. */
    private static String clip(String s) {
        return s.length() <= 4000 ? s : s.substring(0, 4000) + "…";
    }
}
