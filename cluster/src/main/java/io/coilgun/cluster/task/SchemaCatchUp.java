package io.coilgun.cluster.task;

import io.coilgun.planner.event.EventCodec;
import io.coilgun.planner.model.StreamDef;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An event written with a newer schema than its task's: another node's front end applied an ALTER STREAM this node
 * has not applied yet. The task takes the node's newest definition if it has it; otherwise it waits for it (the same
 * record again at the next poll) rather than failing on the event, which would skip it on this copy only, for at
 * most {@link #WAIT_MS}. Only the task's unit thread calls it.
 */
final class SchemaCatchUp {
    private static final Logger LOG = LoggerFactory.getLogger(SchemaCatchUp.class);
    /** How long a task waits for its node to apply a newer schema before the event fails. */
    static final long WAIT_MS = 60_000;
    private static final long LOG_EVERY_MS = 5_000;

    private final TaskId id;
    /** How the task takes a newer definition of its stream. */
    private final Consumer<StreamDef> alter;
    /** The stream as deployed on this node now (it may know a newer schema than the task took so far). */
    private Supplier<StreamDef> deployed = () -> null;
    /** When the task began waiting for the schema of the record it holds back (wall clock, ms), or 0. */
    private long waitSince;
    private long lastLogged;

    SchemaCatchUp(TaskId id, Consumer<StreamDef> alter) {
        this.id = id;
        this.alter = alter;
    }

    /** Where the task finds its stream's newest definition on this node. */
    void deployed(Supplier<StreamDef> stream) {
        this.deployed = stream;
    }

    /**
     * {@code record} was written with a schema newer than the task's: true when the task goes on with it (it took
     * the node's newest definition, or waited too long: the event then fails as any undecodable one), false when it
     * waits (the unit takes the record again at its next poll).
     */
    boolean goOn(ConsumerRecord<byte[], byte[]> record, long nowMillis) {
        StreamDef newest = deployed.get();
        if (newest != null && newest.schemaVersion() >= EventCodec.schemaVersionOf(record.value())) {
            alter.accept(newest);
            return true;
        }
        if (waitSince == 0) {
            waitSince = nowMillis;
        } else if (nowMillis - waitSince > WAIT_MS) {
            // the node never applied it (its catalog follower failed?)
            LOG.error("task={} offset={} waited {} ms for schema version {}; the event fails", id, record.offset(),
                    nowMillis - waitSince, EventCodec.schemaVersionOf(record.value()));
            waitSince = 0;
            return true;
        }
        if (nowMillis - lastLogged > LOG_EVERY_MS) {
            lastLogged = nowMillis;
            LOG.info("task={} offset={} waits for this node to apply the stream's schema version {}", id,
                    record.offset(), EventCodec.schemaVersionOf(record.value()));
        }
        return false;
    }

    /** The task took an event of a schema it knows: no wait under way. */
    void caughtUp() {
        waitSince = 0;
    }
}
