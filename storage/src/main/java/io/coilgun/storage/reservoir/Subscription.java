package io.coilgun.storage.reservoir;

/**
 * A window's subscription to a shared {@link WindowIterator}. It counts the events with {@code seq >= minSeq} (those
 * after its metric started) or {@code t >= countedFrom} (the history a backfill filled it from).
 */
public final class Subscription {
    private final WindowIterator iterator;
    private final long minSeq;
    private final long countedFrom;
    private final EventHandler handler;

    Subscription(WindowIterator iterator, long minSeq, long countedFrom, EventHandler handler) {
        this.iterator = iterator;
        this.minSeq = minSeq;
        this.countedFrom = countedFrom;
        this.handler = handler;
    }

    /** Whether the event at {@code (time, seq)} is one this subscription counts. */
    public boolean counts(long time, long seq) {
        return seq >= minSeq || time >= countedFrom;
    }

    public WindowIterator iterator() {
        return iterator;
    }

    public long minSeq() {
        return minSeq;
    }

    EventHandler handler() {
        return handler;
    }

    /** Stops passing events to this handler; an iterator left without subscribers is dropped. */
    public void cancel() {
        iterator.unsubscribe(this);
    }
}
