package io.coilgun.storage.reservoir;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decoded chunks, least recently used evicted first, bounded in chunks and in bytes. Owned by one processor
 * thread (it may serve all the reservoirs of that thread): no locking.
 */
public final class ChunkCache {
    private final int maxChunks;
    private final long maxBytes;
    private final LinkedHashMap<Key, Chunk> chunks = new LinkedHashMap<>(64, 0.75f, true);
    private long bytes;

    private record Key(Object owner, long no) {
    }

    public ChunkCache(int maxChunks, long maxBytes) {
        this.maxChunks = maxChunks;
        this.maxBytes = maxBytes;
    }

    Chunk get(Object owner, long no) {
        return chunks.get(new Key(owner, no));
    }

    void put(Object owner, Chunk c) {
        Chunk old = chunks.put(new Key(owner, c.no), c);
        if (old != null) {
            bytes -= old.heapBytes();
        }
        bytes += c.heapBytes();
        var it = chunks.entrySet().iterator();
        while ((chunks.size() > maxChunks || bytes > maxBytes) && it.hasNext()) {
            Map.Entry<Key, Chunk> e = it.next();
            bytes -= e.getValue().heapBytes();
            it.remove();
        }
    }

    void removeOwner(Object owner) {
        chunks.entrySet().removeIf(e -> {
            if (e.getKey().owner() == owner) {
                bytes -= e.getValue().heapBytes();
                return true;
            }
            return false;
        });
    }

    public int size() {
        return chunks.size();
    }

    public long bytes() {
        return bytes;
    }
}
