package io.coilgun.storage.reservoir;

/** Counters of a reservoir, read on its processor thread (for benchmarks, tests and statistics tables). */
public final class ReservoirStats {
    public long appended;
    public long sealed;
    public long sealedRawBytes;
    public long writtenBytes;
    public long droppedChunks;
    public long memoryReads;
    public long cacheHits;
    public long readAheads;
    public long readAheadHits;
    /** Chunk reads that had to wait for a read-ahead still in flight. */
    public long stalls;
    /** Chunk reads with no read-ahead at all, done on the caller's thread. */
    public long syncLoads;
    public int openEvents;
    public long openBytes;
    public int chunks;
    public int pendingChunks;
    public int cachedChunks;
    public int iterators;

    @Override
    public String toString() {
        return "appended=" + appended + " sealed=" + sealed + " chunks=" + chunks + " pending=" + pendingChunks
                + " open=" + openEvents + " cached=" + cachedChunks + " iterators=" + iterators + " memoryReads="
                + memoryReads + " cacheHits=" + cacheHits + " readAheads=" + readAheads + " readAheadHits="
                + readAheadHits + " stalls=" + stalls + " syncLoads=" + syncLoads + " rawBytes=" + sealedRawBytes
                + " diskBytes=" + writtenBytes;
    }
}
