package io.coilgun.storage.reservoir;

/** A window's subscription to a shared {@link WindowIterator}. */
public final class Subscription {
    private final WindowIterator iterator;
    private final long minSeq;
    private final EventHandler handler;

    Subscription(WindowIterator iterator, long minSeq, EventHandler handler) {
        this.iterator = iterator;
        this.minSeq = minSeq;
        this.handler = handler;
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
