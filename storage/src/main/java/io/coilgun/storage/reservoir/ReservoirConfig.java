package io.coilgun.storage.reservoir;

/**
 * How a reservoir cuts and stores chunks.
 *
 * @param latenessMicros the stream's lateness: events at {@code t <= S - lateness} are final
 * @param targetChunkBytes a chunk closes when its final events reach this raw size (default 64 KiB)
 * @param maxChunkAgeMicros ... or when its oldest event is this much older than the final horizon, so that a slow
 *     stream still seals chunks (default 1 hour of event time; memory is bounded by the size rule anyway)
 * @param segmentBytes segment files roll at this size (default 64 MiB)
 */
public record ReservoirConfig(long latenessMicros, int targetChunkBytes, long maxChunkAgeMicros, long segmentBytes) {
    public static final int DEFAULT_CHUNK_BYTES = 64 * 1024;
    public static final long DEFAULT_MAX_CHUNK_AGE_MICROS = 3_600_000_000L;
    public static final long DEFAULT_SEGMENT_BYTES = 64L << 20;

    public static ReservoirConfig of(long latenessMicros) {
        return new ReservoirConfig(latenessMicros, DEFAULT_CHUNK_BYTES, DEFAULT_MAX_CHUNK_AGE_MICROS,
                DEFAULT_SEGMENT_BYTES);
    }
}
