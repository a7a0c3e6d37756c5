package io.coilgun.cluster.ingest;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The streams whose events this node's front end holds back: a stream partitioned by one field that is gaining a
 * decider ({@code ALTER STREAM … ADD PARTITION BY}) takes no events until its decider holds the history of every
 * task. A statement of such a stream waits (checked under the stream's ingest lock, so none publishes after the
 * pause), then publishes to the decider.
 */
public final class StreamPauses {
    private final Map<String, CompletableFuture<Void>> paused = new ConcurrentHashMap<>();

    /** The stream's statements wait from now on. */
    public void pause(String stream) {
        paused.putIfAbsent(stream, new CompletableFuture<>());
    }

    public boolean paused(String stream) {
        return paused.containsKey(stream);
    }

    /** Completes when the stream takes events again (at once if it does now). */
    public CompletableFuture<Void> resumed(String stream) {
        CompletableFuture<Void> f = paused.get(stream);
        return f == null ? CompletableFuture.completedFuture(null) : f;
    }

    /** The stream takes events again: the statements waiting go on. */
    public void resume(String stream) {
        CompletableFuture<Void> f = paused.remove(stream);
        if (f != null) {
            f.complete(null);
        }
    }
}
