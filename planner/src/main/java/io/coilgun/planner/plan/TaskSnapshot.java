package io.coilgun.planner.plan;

import io.coilgun.storage.snapshot.SnapshotFile;
import java.util.List;

/** A copy of a task as of one checkpoint ({@link TaskPlan#snapshot}): the offset it goes on from, and its files. */
public record TaskSnapshot(long nextOffset, List<SnapshotFile> files) {
    public TaskSnapshot {
        files = List.copyOf(files);
    }
}
