package io.coilgun.cluster;

/**
 * Progress of a long operation the node's command line waits for: the start-up replay ({@link #REPLAY}, records
 * applied of those to apply) and the drain before a stop ({@link #DRAIN}, tasks handed over of those led here).
 * Reported about once a second, only while the operation lasts longer than that, and once more when it ends.
 */
@FunctionalInterface
public interface Progress {
    String REPLAY = "start-up replay";
    String DRAIN = "drain";

    Progress NONE = (operation, done, total) -> { };

    void report(String operation, long done, long total);
}
