package io.coilgun.storage.snapshot;

/**
 * One file of a task snapshot: its path relative to the snapshot's directory ({@code state/000012.sst},
 * {@code reservoir/segment-0000000003.seg}) and the length of the prefix that belongs to the snapshot. The files of a
 * snapshot are hard links to the task's append-only files, or copies; a file may have grown since, never changed
 * below {@code length}.
 */
public record SnapshotFile(String path, long length) {
    public SnapshotFile {
        if (path.isEmpty() || path.startsWith("/") || path.contains("..") || path.contains("\\")) {
            throw new IllegalArgumentException("not a relative snapshot path: " + path);
        }
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length + " of " + path);
        }
    }
}
